import { runAdapterConformance } from '@hilo/testing';
import { mikroOrmHarness } from './support/conformance-harness.js';

runAdapterConformance(mikroOrmHarness('sqlite'));
