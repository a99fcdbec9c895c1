// Network faults between hilo and postgres through postgres.js (fault-suite.ts): stalls, cuts mid-reservation,
// a restarting database — what postgres.js reports for each must read as transient where it is.
import { faultSuite } from './fault-suite.js';
import { connectPostgresJs } from './postgres-js-support.js';

faultSuite('postgres', {
  name: 'postgres.js',
  connect: connectPostgresJs,
  boundsClose: true,
  // postgres.js has no call that destroys one connection of its pool: a blackhole's zombies are its own to find
  dropsDeadConnections: false,
});
