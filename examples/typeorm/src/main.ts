import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { DataSource, type Logger } from 'typeorm';
import { hiloMetrics } from 'hilo-core/otel';
import { hiloOf, withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem } from './entities.js';
import { IdentityCustomer, IdentityOrder, IdentityOrderItem } from './identity-entities.js';

/** Counts the SQL statements TypeORM sends. */
export class StatementCounter implements Logger {
  count = 0;
  logQuery(): void {
    this.count++;
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

const catalog = [
  { sku: 'TEA-GREEN', priceCents: 450 },
  { sku: 'TEA-BLACK', priceCents: 390 },
  { sku: 'MUG', priceCents: 1200 },
];
const people = [
  { name: 'Ada Lovelace', email: 'ada@example.com' },
  { name: 'Grace Hopper', email: 'grace@example.com' },
  { name: 'Edsger Dijkstra', email: 'edsger@example.com' },
];

/**
 * Runs the shop against the PostgreSQL database at `url`: keys known at create(), orders wired to customers
 * by key, one batch insert, a rolled-back transaction; then the same batch with identity keys.
 */
export async function run(
  url: string,
  log: (line: string) => void = console.log,
): Promise<{
  keysBeforeFlush: number;
  statements: number;
  identityStatements: number;
  metrics: Record<string, number>;
}> {
  const counter = new StatementCounter();
  // OpenTelemetry metrics: an app registers its SDK and exporter once; here an in-memory one, read at the end.
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = hiloMetrics({ meter: meterProvider.getMeter('shop') });
  // One line wires hilo: initialize() reserves a block per segment (customers, orders, order_items).
  const dataSource = withHiLo(
    new DataSource({
      type: 'postgres',
      url,
      entities: [Customer, Order, OrderItem, IdentityCustomer, IdentityOrder, IdentityOrderItem],
      synchronize: true,
      logger: counter,
    }),
    { blockSize: 100, onEvent: telemetry.onEvent },
  );
  await dataSource.initialize();
  const stopObserving = telemetry.observe(hiloOf(dataSource).generator);
  try {
    const customers = dataSource.getRepository(Customer);
    const orders = dataSource.getRepository(Order);

    // 1. Keys before persisting: every create() returns an entity whose key is already set.
    const shoppers = customers.create(people);
    const basket = shoppers.flatMap((customer, n) =>
      [0, 1].map((k) =>
        orders.create({
          customerId: customer.id, // wired by key: the customer is not saved yet
          items: catalog.slice(0, 2 + ((n + k) % 2)).map((product, i) => ({ ...product, quantity: 1 + i })),
        }),
      ),
    );
    const keys = [...shoppers.map((c) => c.id), ...basket.flatMap((o) => [o.id, ...o.items.map((i) => i.id)])];
    const keysBeforeFlush = keys.filter((key) => typeof key === 'number').length;
    log(
      `${keysBeforeFlush} keys known before anything was saved, e.g. order ${basket[0]!.id} of customer ${basket[0]!.customerId}`,
    );

    // 2. One batch, one transaction: a multi-row INSERT per table, no SELECT first, no RETURNING of keys.
    const before = counter.count;
    await dataSource.transaction(async (manager) => {
      await manager.save(shoppers);
      await manager.save(basket);
    });
    const statements = counter.count - before;
    log(
      `saved ${shoppers.length} customers, ${basket.length} orders and ${keys.length - shoppers.length - basket.length} ` +
        `items in ${statements} statements`,
    );

    // 3. A rolled-back transaction: its keys are gone for good, never handed out again.
    let abandoned = 0;
    await dataSource
      .transaction(async (manager) => {
        const order = manager.create(Order, { customerId: shoppers[0]!.id, items: [{ ...catalog[2]!, quantity: 1 }] });
        abandoned = order.id;
        await manager.save(order);
        throw new Error('payment declined');
      })
      .catch((error: Error) => log(`transaction rolled back (${error.message}); order key ${abandoned} stays unused`));
    const next = orders.create({ customerId: shoppers[0]!.id, items: [] });
    log(
      `the next order gets key ${next.id}, not ${abandoned}; ${await orders.countBy({ id: abandoned })} rows carry ${abandoned}`,
    );

    // The graph reads back with keys as numbers.
    const reloaded = await orders.findOneOrFail({
      where: { id: basket[0]!.id },
      relations: { customer: true, items: true },
    });
    log(`order ${reloaded.id}: ${reloaded.customer!.name}, ${reloaded.items.length} items`);

    // 4. The same batch through TypeORM's identity keys: customers first (to learn their keys), then orders.
    const beforeIdentity = counter.count;
    await dataSource.transaction(async (manager) => {
      const saved = await manager.save(manager.create(IdentityCustomer, people));
      await manager.save(
        saved.flatMap((customer, n) =>
          [0, 1].map((k) =>
            manager.create(IdentityOrder, {
              customerId: customer.id,
              items: catalog.slice(0, 2 + ((n + k) % 2)).map((product, i) => ({ ...product, quantity: 1 + i })),
            }),
          ),
        ),
      );
    });
    const identityStatements = counter.count - beforeIdentity;
    log(`identity keys: the same batch took ${identityStatements} statements, and no key was known before saving`);
    const reservations = Object.values(hiloOf(dataSource).generator.stats()).reduce(
      (sum, s) => sum + s.reservations,
      0,
    );
    log(`hilo reserved blocks ${reservations} times, on a connection of its own`);

    // 5. What an operator's dashboard would show: hilo's OpenTelemetry instruments, summed over segments.
    await reader.forceFlush();
    const metrics: Record<string, number> = {};
    for (const metric of exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? []) {
      for (const point of metric.dataPoints) {
        const value = typeof point.value === 'number' ? point.value : (point.value as { count: number }).count;
        metrics[metric.descriptor.name] = (metrics[metric.descriptor.name] ?? 0) + value;
      }
    }
    log(
      `metrics: ${Object.entries(metrics)
        .map(([name, value]) => `${name}=${value}`)
        .join(', ')}`,
    );
    return { keysBeforeFlush, statements, identityStatements, metrics };
  } finally {
    stopObserving();
    await dataSource.destroy();
    await meterProvider.shutdown();
  }
}
