// Network faults between hilo and MariaDB through the `mariadb` connector (fault-suite.ts): stalls, cuts
// mid-reservation, a restarting database — what the connector reports for each must read as transient where it is.
import { faultSuite } from './fault-suite.js';
import { connectMariadb } from './mariadb-support.js';

faultSuite('mysql', {
  name: 'the mariadb connector',
  connect: connectMariadb,
  boundsClose: false,
  waitsOutRefusals: true,
});
