// Network faults between hilo and postgres (fault-suite.ts): stalls, cuts mid-reservation, a restarting database.
import { faultSuite } from './fault-suite.js';

faultSuite('postgres');
