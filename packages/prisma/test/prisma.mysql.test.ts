import { describeMysql } from '@hilo/testing';
import { prismaSuite } from './suite.js';

describeMysql('prisma: hilo extension on MariaDB', (db) => prismaSuite('mysql', db));
