import { runAdapterConformance } from '@hilo/testing';
import { drizzleHarness } from './support/conformance-harness.js';

runAdapterConformance(drizzleHarness('sqlite'));
