import { adapterSuite } from './support/adapter-suite.js';
import { defineEntityModel } from './fixtures/define-entities.js';

adapterSuite('postgres', defineEntityModel);
