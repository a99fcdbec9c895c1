// The interop preset tests on PostgreSQL: simulated Hibernate, EF Core (Npgsql), NHibernate and Marten nodes
// (presets-clients.ts) against hilo on one database. The same suite runs on MariaDB in presets.mysql.test.ts.
import { presetSuite } from './presets-suite.js';

presetSuite('postgres');
