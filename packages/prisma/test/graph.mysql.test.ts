import { describeMysql } from '@hilo/testing';
import { graphSuite } from './graph-suite.js';

describeMysql('prisma: createGraph() on MariaDB (multi-row INSERTs through a mysql2 pool)', (db) =>
  graphSuite('mysql', db),
);
