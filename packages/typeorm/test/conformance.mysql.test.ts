import { runAdapterConformance } from '@hilo/testing';
import { typeormHarness } from './support/conformance-harness.js';

runAdapterConformance(typeormHarness('mysql'));
