import { describeMysql } from '@hilo/testing';
import { memorySource } from 'hilo-core';
import { typeormAdapterSuite } from './support/adapter-suite.js';

describeMysql('typeorm on mariadb: keys before persistence', (db) => {
  typeormAdapterSuite(db, { source: () => memorySource() });
});
