import { describePostgres } from '@hilo/testing';
import { shortLivedSuite } from './short-lived-suite.js';

describePostgres('short-lived processes on PostgreSQL', (db) => shortLivedSuite(db));
