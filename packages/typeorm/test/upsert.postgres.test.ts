import { describePostgres } from '@hilo/testing';
import { typeormUpsertSuite } from './support/upsert-suite.js';

describePostgres('typeorm on postgres: upsert()', (db) => {
  typeormUpsertSuite(db, { readsKeysBack: true });
});
