import { describeMysql } from '@hilo/testing';
import { typeormAdapterSuite } from './support/adapter-suite.js';

describeMysql('typeorm on mariadb: keys before persistence', (db) => {
  typeormAdapterSuite(db);
});
