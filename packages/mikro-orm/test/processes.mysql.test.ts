import { crossProcessSuite } from './support/cross-process.js';

crossProcessSuite('mysql');
