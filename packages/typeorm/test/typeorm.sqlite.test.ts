import { typeormAdapterSuite } from './support/adapter-suite.js';
import { describeSqlite } from './support/sqlite.js';

describeSqlite('typeorm on a sqlite file: keys before persistence', (db) => {
  typeormAdapterSuite(db);
});

describeSqlite('typeorm on sqlite :memory:: keys before persistence', (db) => typeormAdapterSuite(db), { memory: true });
