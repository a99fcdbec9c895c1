import { upsertSuite } from './support/upsert-suite.js';

upsertSuite('postgres');
