import { runTenantsSuite } from './tenants-suite.js';

runTenantsSuite('mysql');
