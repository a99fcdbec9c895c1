/**
 * OpenTelemetry metrics for hilo generators (`hilo-core/otel`). Loaded only when imported; needs the optional
 * peer `@opentelemetry/api` and an SDK (or any other implementation of its meter API) registered by the app.
 */
import { metrics, type Attributes, type Meter } from '@opentelemetry/api';
import type { HiLoEvent } from './engine/events.js';
import type { HiLoGenerator } from './engine/generator.js';
import { SEGMENT_TRANSITIONS, type SegmentState } from './engine/lifecycle.js';

/** Options of {@link hiloMetrics}. */
export interface HiLoMetricsOptions {
  /**
   * The meter instruments are created on.
   * @default metrics.getMeter('hilo-core') from the global meter provider
   */
  readonly meter?: Meter;
}

/** What {@link hiloMetrics} returns: an event handler and a way to observe generators. */
export interface HiLoMetrics {
  /**
   * Pass as the generator's (or adapter's) `onEvent` option: counts reservations, their duration, failures,
   * keys returned and lost, and block-size changes. Call your own handler from it if you have one.
   */
  readonly onEvent: (event: HiLoEvent) => void;
  /**
   * Reports what a running generator holds, read from its `stats()` at each collection: keys issued, keys
   * available in memory and the current block size, per segment. Returns a function that stops observing.
   */
  observe(generator: Pick<HiLoGenerator<number | bigint>, 'stats'>): () => void;
}

/** The attribute naming a segment on every instrument. */
export const SEGMENT_ATTRIBUTE = 'hilo.segment';

/** The attribute naming a state on `hilo.segment.state`. */
const STATE_ATTRIBUTE = 'hilo.state';

/** Every state `hilo.segment.state` reports, in the order of the segment's life: the rows of its transition table. */
const SEGMENT_STATES = Object.keys(SEGMENT_TRANSITIONS) as readonly SegmentState[];

/**
 * Creates hilo's OpenTelemetry instruments:
 *
 * | instrument | kind | unit | attributes |
 * | --- | --- | --- | --- |
 * | `hilo.keys.issued` | observable counter | `{key}` | `hilo.segment` |
 * | `hilo.keys.available` | observable gauge | `{key}` | `hilo.segment` |
 * | `hilo.block.size` | observable gauge | `{key}` | `hilo.segment` |
 * | `hilo.segment.state` | observable gauge | `{segment}` | `hilo.segment`, `hilo.state`: 1 for the segment's state, 0 for the others |
 * | `hilo.reservations` | counter | `{reservation}` | `hilo.segment` |
 * | `hilo.reservation.duration` | histogram | `s` | `hilo.segment` |
 * | `hilo.reservation.failures` | counter | `{attempt}` | `hilo.segment`, `hilo.outcome` (`retried`, `gave_up`), `error.type` |
 * | `hilo.keys.returned` | counter | `{key}` | `hilo.segment` |
 * | `hilo.keys.lost` | counter | `{key}` | `hilo.segment`, `hilo.reason` |
 * | `hilo.floor.lifts` | counter | `{lift}` | `hilo.segment`, `hilo.table` |
 * | `hilo.failovers` | counter | `{failover}` | none |
 *
 * @example
 * ```ts
 * import { connect, createHiLo } from 'hilo-core';
 * import { hiloMetrics } from 'hilo-core/otel';
 *
 * const telemetry = hiloMetrics();
 * const hilo = createHiLo({ client: await connect(process.env.DATABASE_URL!), onEvent: telemetry.onEvent });
 * telemetry.observe(hilo);
 * ```
 */
export function hiloMetrics(options: HiLoMetricsOptions = {}): HiLoMetrics {
  const meter = options.meter ?? metrics.getMeter('hilo-core');
  const reservations = meter.createCounter('hilo.reservations', {
    description: 'Successful reservations of key blocks',
    unit: '{reservation}',
  });
  const duration = meter.createHistogram('hilo.reservation.duration', {
    description: 'Time one successful reservation took, retries excluded',
    unit: 's',
    advice: {
      explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    },
  });
  const failures = meter.createCounter('hilo.reservation.failures', {
    description: 'Reservation attempts that failed',
    unit: '{attempt}',
  });
  const returned = meter.createCounter('hilo.keys.returned', {
    description: 'Unused keys given back to the database at close',
    unit: '{key}',
  });
  const lost = meter.createCounter('hilo.keys.lost', {
    description: 'Keys that will never be handed out (gaps, never duplicates)',
    unit: '{key}',
  });
  const lifts = meter.createCounter('hilo.floor.lifts', {
    description: "Hi stores found behind their stored keys and lifted above them (onStoreBehind: 'lift')",
    unit: '{lift}',
  });
  const failovers = meter.createCounter('hilo.failovers', {
    description: 'Times hilo found itself on another database server than the one its blocks came from',
    unit: '{failover}',
  });
  const issued = meter.createObservableCounter('hilo.keys.issued', { description: 'Keys handed out', unit: '{key}' });
  const available = meter.createObservableGauge('hilo.keys.available', {
    description: 'Keys in memory, ready without a round trip',
    unit: '{key}',
  });
  const blockSize = meter.createObservableGauge('hilo.block.size', {
    description: 'Keys the next reservation asks for',
    unit: '{key}',
  });

  const state = meter.createObservableGauge('hilo.segment.state', {
    description:
      "The segment's state (hilo.state: unverified, serving, parked, refused, closed): 1 for the one it is in, 0 for the others",
    unit: '{segment}',
  });

  const observed = new Set<Pick<HiLoGenerator<number | bigint>, 'stats'>>();
  meter.addBatchObservableCallback(
    (result) => {
      for (const generator of observed) {
        for (const [segment, stats] of Object.entries(generator.stats())) {
          const attributes: Attributes = { [SEGMENT_ATTRIBUTE]: segment };
          result.observe(issued, stats.keysIssued, attributes);
          result.observe(available, stats.keysAvailable, attributes);
          result.observe(blockSize, stats.blockSize, attributes);
          for (const s of SEGMENT_STATES) {
            result.observe(state, s === stats.state ? 1 : 0, { ...attributes, [STATE_ATTRIBUTE]: s });
          }
        }
      }
    },
    [issued, available, blockSize, state],
  );

  return {
    onEvent(event: HiLoEvent): void {
      if (!('segment' in event)) {
        if (event.type === 'failover') failovers.add(1);
        // server-unconfirmed and server-confirmed are in the events only
        return;
      }
      const attributes: Attributes = { [SEGMENT_ATTRIBUTE]: event.segment };
      switch (event.type) {
        case 'reserved':
          reservations.add(1, attributes);
          duration.record(event.durationMs / 1000, attributes);
          break;
        case 'retry':
        case 'failed':
          failures.add(1, {
            ...attributes,
            'hilo.outcome': event.type === 'retry' ? 'retried' : 'gave_up',
            'error.type': errorType(event.error),
          });
          break;
        case 'returned':
          returned.add(event.keys, attributes);
          break;
        case 'lost':
          lost.add(event.keys, { ...attributes, 'hilo.reason': event.reason });
          break;
        case 'floor-lifted':
          lifts.add(1, { ...attributes, 'hilo.table': event.table });
          break;
        // headroom and block resizes are in stats() and the events; no OpenTelemetry instrument records them
        case 'headroom':
        case 'resized':
        default:
          break;
      }
    },
    observe(generator) {
      observed.add(generator);
      return () => observed.delete(generator);
    },
  };
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown';
}
