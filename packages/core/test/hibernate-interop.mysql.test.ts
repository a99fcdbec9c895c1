import { hibernateInteropSuite } from './hibernate-interop-suite.js';

hibernateInteropSuite('mysql');
