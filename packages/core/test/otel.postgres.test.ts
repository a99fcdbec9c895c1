// hilo's OpenTelemetry metrics (hilo-core/otel) read by the OpenTelemetry SDK's in-memory exporter, with
// reservations from a real PostgreSQL sequence.
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { describePostgres } from '@hilo/testing';
import { hiloMetrics } from 'hilo-core/otel';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import { sequenceSource } from '../src/operations/sources.js';

describePostgres('OpenTelemetry metrics', (db) => {
  it('reports keys issued and available, block size, reservations and their duration, and keys returned or lost, per segment', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = hiloMetrics({ meter: provider.getMeter('hilo-test') });
    const client = await connect(db.url);
    const hilo = createHiLoGenerator({
      source: sequenceSource(client, { increment: 10 }),
      blockSize: 10,
      adaptive: false,
      prefetchAt: false,
      onEvent: telemetry.onEvent,
    });
    const stop = telemetry.observe(hilo);
    try {
      await hilo.reserve('otel_orders', 25); // three blocks of 10
      await hilo.next('otel_items');
      await reader.forceFlush();
      const all = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
      const latest = new Map<string, MetricData>();
      for (const metric of all) latest.set(metric.descriptor.name, metric);
      const point = (name: string, segment: string) =>
        latest.get(name)?.dataPoints.find((p) => p.attributes['hilo.segment'] === segment)?.value as unknown;

      expect(point('hilo.keys.issued', 'otel_orders')).toBe(25);
      expect(point('hilo.keys.available', 'otel_orders')).toBe(5);
      expect(point('hilo.block.size', 'otel_orders')).toBe(10);
      // the segment's state: 1 for serving, 0 for every other state
      const states = latest
        .get('hilo.segment.state')
        ?.dataPoints.filter((p) => p.attributes['hilo.segment'] === 'otel_orders')
        .map((p) => [p.attributes['hilo.state'], p.value]);
      expect(Object.fromEntries(states ?? [])).toEqual({ unverified: 0, serving: 1, parked: 0, refused: 0, closed: 0 });
      expect(point('hilo.reservations', 'otel_orders')).toBe(1);
      expect(point('hilo.reservations', 'otel_items')).toBe(1);
      expect(point('hilo.keys.issued', 'otel_items')).toBe(1);
      const histogram = point('hilo.reservation.duration', 'otel_orders') as { count: number; sum: number };
      expect(histogram.count).toBe(1);
      expect(histogram.sum).toBeGreaterThan(0);
      // seconds, not milliseconds: the reservation's own duration over 1000, however long it took (issue #52)
      expect(histogram.sum).toBeCloseTo(hilo.stats().otel_orders!.lastReservationMs / 1000, 6);
      expect(latest.get('hilo.reservation.duration')?.descriptor.unit).toBe('s');

      await hilo.close(); // a sequence cannot take keys back: the unused ones are lost
      await reader.forceFlush();
      const afterClose = exporter
        .getMetrics()
        .at(-1)!
        .scopeMetrics.flatMap((s) => s.metrics);
      const lost = afterClose.find((m) => m.descriptor.name === 'hilo.keys.lost')!;
      expect(lost.dataPoints.find((p) => p.attributes['hilo.segment'] === 'otel_orders')).toMatchObject({
        value: 5,
        attributes: { 'hilo.reason': 'close' },
      });
    } finally {
      stop();
      await hilo.close();
      await client.close();
      await provider.shutdown();
    }
  });

  it('counts failed attempts with their outcome and error type', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = hiloMetrics({ meter: provider.getMeter('hilo-test') });
    const client = await connect(db.url);
    // a sequence that does not exist and may not be created: not retryable, one failure that gives up
    const hilo = createHiLoGenerator({
      source: sequenceSource(client, { increment: 10, create: false }),
      blockSize: 10,
      onEvent: telemetry.onEvent,
    });
    try {
      await expect(hilo.next('otel_missing')).rejects.toThrow(/does not exist/);
      await reader.forceFlush();
      const failures = exporter
        .getMetrics()
        .at(-1)!
        .scopeMetrics.flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'hilo.reservation.failures')!;
      expect(failures.dataPoints).toEqual([
        expect.objectContaining({
          value: 1,
          attributes: {
            'hilo.segment': 'otel_missing',
            'hilo.outcome': 'gave_up',
            'error.type': expect.stringMatching(/^HILO_/),
          },
        }),
      ]);
    } finally {
      await hilo.close();
      await client.close();
      await provider.shutdown();
    }
  });
});
