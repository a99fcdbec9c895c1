import { runVerifiedBlocksSuite } from './verified-blocks-suite.js';

runVerifiedBlocksSuite('mysql');
