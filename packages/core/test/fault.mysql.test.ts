// Network faults between hilo and mysql (fault-suite.ts): stalls, cuts mid-reservation, a restarting database.
import { faultSuite } from './fault-suite.js';

faultSuite('mysql');
