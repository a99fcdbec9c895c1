import { describeMysql } from '@hilo/testing';
import { graphLoadSuite } from './support/graph-load-suite.js';

describeMysql('typeorm on mariadb: loadGraph() (multi-row INSERTs)', (db) => {
  graphLoadSuite(db);
});
