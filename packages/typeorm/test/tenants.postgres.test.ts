import { describePostgres } from '@hilo/testing';
import { tenantsSuite } from './support/tenants-suite.js';

describePostgres('typeorm: a DataSource per tenant schema, sequences', (db) => tenantsSuite(db, 'sequence'));
describePostgres('typeorm: a DataSource per tenant schema, a hi table', (db) => tenantsSuite(db, 'table'));
