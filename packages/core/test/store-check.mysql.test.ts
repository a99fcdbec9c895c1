import { runStoreCheckSuite } from './store-check-suite.js';

runStoreCheckSuite('mysql');
