import { adapterSuite } from '../../mikro-orm/test/support/adapter-suite.js';
import { coreDecoratorModel } from './fixtures/core-decorators.js';

adapterSuite('postgres', coreDecoratorModel);
