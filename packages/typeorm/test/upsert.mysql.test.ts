import { describeMysql } from '@hilo/testing';
import { typeormUpsertSuite } from './support/upsert-suite.js';

// MariaDB 10.5+ has INSERT … RETURNING, and TypeORM uses it there: the keys are read back as on PostgreSQL.
describeMysql('typeorm on mariadb: upsert()', (db) => {
  typeormUpsertSuite(db, { readsKeysBack: true });
});
