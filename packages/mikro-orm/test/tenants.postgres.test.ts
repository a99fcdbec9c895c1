import { runMikroOrmTenants } from './tenants-suite.js';

runMikroOrmTenants('postgres');
