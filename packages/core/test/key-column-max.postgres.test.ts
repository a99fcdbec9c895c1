import { runKeyColumnMaxSuite } from './key-column-max-suite.js';

runKeyColumnMaxSuite('postgres');
