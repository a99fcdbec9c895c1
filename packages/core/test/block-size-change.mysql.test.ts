import { runBlockSizeChangeSuite } from './block-size-change-suite.js';

runBlockSizeChangeSuite('mysql');
