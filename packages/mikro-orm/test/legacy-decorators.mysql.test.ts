import { adapterSuite } from './support/adapter-suite.js';
import { legacyModel } from './fixtures/legacy-entities.js';

adapterSuite('mysql', legacyModel);
