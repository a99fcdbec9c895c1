import { describePostgres } from '@hilo/testing';
import { prismaSuite } from './suite.js';

describePostgres('prisma: hilo extension on PostgreSQL', (db) => prismaSuite('postgres', db));
