import { describePostgres } from '@hilo/testing';
import { typeormAdapterSuite } from './support/adapter-suite.js';

describePostgres('typeorm on postgres: keys before persistence', (db) => {
  typeormAdapterSuite(db);
});
