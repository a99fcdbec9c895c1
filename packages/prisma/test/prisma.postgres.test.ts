import { describePostgres } from '@hilo/testing';
import { prismaSuite } from './suite.js';

describePostgres('prisma: hilo extension on PostgreSQL, sequence source', (db) => prismaSuite('postgres', db, 'sequence'));
describePostgres('prisma: hilo extension on PostgreSQL, table source', (db) => prismaSuite('postgres', db, 'table'));
