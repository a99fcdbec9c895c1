// The interop preset tests on MariaDB: simulated Hibernate and NHibernate nodes (presets-clients.ts) against
// hilo on one database; EF Core (Npgsql) and Marten are PostgreSQL-only and must be refused here.
import { presetSuite } from './presets-suite.js';

presetSuite('mysql');
