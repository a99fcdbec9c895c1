// A store shared by tenants (issue 53): what one verified reservation costs when the segment's table is in 100 and in
// 1,000 tenant schemas, every tenant's copy probed (`tenants: '*'`, the tenants read from the catalog at each block).
import pg from 'pg';
import { createHiLoGenerator, memorySource, pgClient, sqlStoredKeys, type SqlClient } from 'hilo-core';
import { consume, type Result } from './measure.js';

const TABLE = 'bench_tenant_orders';

/** `count` tenant schemas `bench_tenant_1…`, each with its copy of the table holding ten keys. */
async function tenantSchemas(client: SqlClient, count: number): Promise<void> {
  await client.query(
    `do $$ begin for i in 1..${count} loop ` +
      `execute format('create schema if not exists bench_tenant_%s', i); ` +
      `execute format('create table if not exists bench_tenant_%s.${TABLE} (id bigint primary key)', i); ` +
      `execute format('insert into bench_tenant_%s.${TABLE} select g from generate_series(1, 10) g on conflict do nothing', i); ` +
      `end loop; end $$`,
  );
}

async function dropTenantSchemas(client: SqlClient, count: number): Promise<void> {
  await client.query(
    `do $$ begin for i in 1..${count} loop execute format('drop schema if exists bench_tenant_%s cascade', i); ` +
      `end loop; end $$`,
  );
}

/** The median time of one verified reservation of 100 keys over `runs` reservations after 3 of warm-up. */
async function medianReservation(client: SqlClient, runs: number): Promise<number> {
  const segment = `${TABLE}_seg`;
  const generator = createHiLoGenerator({
    source: memorySource({ start: 1_000 }),
    blockSize: 100,
    adaptive: false,
    prefetchAt: false,
    // the first reservation reads each tenant's catalog entry, one after the other: over 1,000 schemas on a busy
    // machine that outlasts the 5 s default
    timeoutMs: 120_000,
    storedKeys: sqlStoredKeys(client, [{ segment, table: TABLE, column: 'id', tenants: '*' }]),
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < runs + 3; i++) {
      const t = performance.now();
      consume((await generator.reserve(segment, 100)).length);
      if (i >= 3) times.push(performance.now() - t);
    }
  } finally {
    await generator.close();
  }
  return times.sort((a, b) => a - b)[times.length >> 1]!;
}

/** The tenant-probe benchmarks on PostgreSQL at `url`. */
export async function tenantBenchmarks(url: string): Promise<Result[]> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const client = pgClient(pool);
  try {
    await tenantSchemas(client, 100);
    const hundred = await medianReservation(client, 40);
    await tenantSchemas(client, 1_000);
    const thousand = await medianReservation(client, 10);
    await dropTenantSchemas(client, 1_000);
    return [
      {
        name: 'pg.tenants.probe_100_ms',
        value: hundred,
        unit: 'ms',
        note:
          "median verified reservation of 100 keys, the table in 100 tenant schemas (tenants: '*'; the tenants' probes " +
          'read together, 250 per statement)',
      },
      {
        name: 'pg.tenants.probe_1000_ms',
        value: thousand,
        unit: 'ms',
        ratio: thousand / hundred,
        note: 'the same over 1,000 tenant schemas; ratio to pg.tenants.probe_100_ms',
      },
    ];
  } finally {
    await client.close();
    await pool.end();
  }
}
