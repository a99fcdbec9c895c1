import { hibernateMismatchSuite } from './hibernate-mismatch-suite.js';

hibernateMismatchSuite('mysql');
