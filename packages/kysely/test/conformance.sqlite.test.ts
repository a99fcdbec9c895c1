import { runAdapterConformance } from '@hilo/testing';
import { kyselyHarness } from './support/conformance-harness.js';

runAdapterConformance(kyselyHarness('sqlite'));
