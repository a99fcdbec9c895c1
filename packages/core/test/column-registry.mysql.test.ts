import { runColumnRegistrySuite } from './column-registry-suite.js';

runColumnRegistrySuite('mysql');
