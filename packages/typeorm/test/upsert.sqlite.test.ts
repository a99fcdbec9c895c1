import { typeormUpsertSuite } from './support/upsert-suite.js';
import { describeSqlite } from './support/sqlite.js';

// TypeORM reads no INSERT back on SQLite: rows keep their keys, entities keep the key hilo gave them.
describeSqlite('typeorm on a sqlite file: upsert()', (db) => {
  typeormUpsertSuite(db, { readsKeysBack: false });
});
