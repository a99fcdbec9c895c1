import { hibernateMismatchSuite } from './hibernate-mismatch-suite.js';

hibernateMismatchSuite('postgres');
