import { runKyselyTenants } from './tenants-suite.js';

runKyselyTenants('postgres');
