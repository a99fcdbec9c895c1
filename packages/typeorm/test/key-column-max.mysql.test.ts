import { keyColumnMaxSuite } from './support/key-column-max-suite.js';

keyColumnMaxSuite('mysql');
