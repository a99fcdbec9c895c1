// The worker of the adapter conformance suite (@hilo/testing): its own DataSource with hilo on a prepared
// database; saves one customer and `orders` orders in batches of 5 and prints the orders' keys as JSON.
// argv[2]: {"kind":"postgres"|"mysql"|"sqlite","url":…,"orders":n}
import { DataSource } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { entities, Customer, Order } from '../support/entities.js';
import { conformanceHiLoOptions } from '../support/conformance-harness.js';

const { kind, url, orders, typeorm } = JSON.parse(process.argv[2]!) as {
  kind: string;
  url: string;
  orders: number;
  typeorm?: string;
};
if (typeorm !== undefined) {
  // Run by packages/typeorm-compat: its tsconfig maps `typeorm` to that release; prove it took.
  const { version } = (
    (await import('typeorm/package.json', { with: { type: 'json' } })) as { default: { version: string } }
  ).default;
  if (version !== typeorm) throw new Error(`the worker loaded TypeORM ${version}, expected ${typeorm}`);
}
const dataSource = withHiLo(
  new DataSource({
    ...(kind === 'postgres'
      ? { type: 'postgres', url }
      : kind === 'sqlite'
        ? { type: 'better-sqlite3', database: url }
        : { type: 'mariadb', url }),
    entities,
  }),
  conformanceHiLoOptions,
);
await dataSource.initialize();
const keys: number[] = [];
try {
  const customer = dataSource.manager.create(Customer, { name: `worker ${process.pid}` });
  await dataSource.manager.save(customer);
  while (keys.length < orders) {
    const batch = Array.from({ length: Math.min(5, orders - keys.length) }, (_, i) =>
      dataSource.manager.create(Order, { customerId: customer.id, total: i, items: [], tags: [] }),
    );
    await dataSource.manager.save(batch);
    keys.push(...batch.map((o) => o.id));
  }
} finally {
  await dataSource.destroy();
}
process.stdout.write(JSON.stringify(keys));
