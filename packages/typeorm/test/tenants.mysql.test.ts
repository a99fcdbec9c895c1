import { describeMysql } from '@hilo/testing';
import { tenantsSuite } from './support/tenants-suite.js';

describeMysql('typeorm: a DataSource per tenant database, sequences', (db) => tenantsSuite(db, 'sequence'));
describeMysql('typeorm: a DataSource per tenant database, a hi table', (db) => tenantsSuite(db, 'table'));
