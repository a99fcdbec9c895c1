import { runAdapterConformance } from '@hilo/testing';
import { prismaHarness } from './support/conformance-harness.js';

runAdapterConformance(prismaHarness('mysql'));
