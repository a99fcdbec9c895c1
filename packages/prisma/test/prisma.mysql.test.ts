import { describeMysql } from '@hilo/testing';
import { prismaSuite } from './suite.js';

describeMysql('prisma: hilo extension on MariaDB, table source', (db) => prismaSuite('mysql', db, 'table'));
describeMysql('prisma: hilo extension on MariaDB, sequence source', (db) => prismaSuite('mysql', db, 'sequence'));
