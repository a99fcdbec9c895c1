import { runAlterSuite } from './alter-suite.js';

runAlterSuite('mysql');
