import { describePostgres } from '@hilo/testing';
import { graphLoadSuite } from './support/graph-load-suite.js';

describePostgres('typeorm on postgres: loadGraph() (binary COPY)', (db) => {
  graphLoadSuite(db);
});
