import { keyGuardSuite } from './key-guard-suite.js';

keyGuardSuite('mysql');
