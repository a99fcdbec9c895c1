// A separate process (same hi/lo settings as uniqueness-suite.ts) that saves customers through its own DataSource
// with hilo and prints their keys as JSON.
// argv: kind (postgres|mysql|sqlite), url (a file for sqlite), batches, batch size, source (sequence|table)
import { DataSource, type DataSourceOptions } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { entities, Customer } from '../support/entities.js';

const [kind, url, batches, size, source] = process.argv.slice(2);
const dataSource = withHiLo(
  new DataSource({
    ...(kind === 'postgres'
      ? { type: 'postgres', url }
      : kind === 'sqlite'
        ? { type: 'better-sqlite3', database: url }
        : { type: 'mariadb', url }),
    entities,
  } as DataSourceOptions),
  { source: source as 'sequence' | 'table', blockSize: 5, adaptive: false },
);
await dataSource.initialize();
const keys: number[] = [];
try {
  for (let b = 0; b < Number(batches); b++) {
    const batch = Array.from({ length: Number(size) }, (_, i) =>
      dataSource.manager.create(Customer, { name: `p${process.pid}-${b}-${i}` }),
    );
    await dataSource.manager.save(batch);
    keys.push(...batch.map((c) => c.id));
  }
} finally {
  await dataSource.destroy();
}
process.stdout.write(JSON.stringify(keys));
