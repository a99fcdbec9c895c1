import { runStoredKeyKindsSuite } from './stored-key-kinds-suite.js';

runStoredKeyKindsSuite('mysql');
