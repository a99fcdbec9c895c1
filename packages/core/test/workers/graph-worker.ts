/**
 * Child process of graph-load.postgres.test.ts: loads `orders` orders of `items` items each through loadGraph() with
 * a generator of its own (sequence source, small blocks), then prints `done ROWS` on stdout.
 *
 * argv[2] is JSON: { url, orders, items, blockSize, batchRows }. Run with `node --import tsx graph-worker.ts '<json>'`.
 */
import pg from 'pg';
import { pgGraphTarget } from '../../src/dialects/postgres/graph-target.js';
import { loadGraph, type GraphNode } from '../../src/graph/load.js';
import { connect } from '../../src/operations/connect.js';
import { createHiLo } from '../../src/operations/create-hilo.js';

interface WorkerSpec {
  url: string;
  orders: number;
  items: number;
  blockSize: number;
  batchRows: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as WorkerSpec;
const client = await connect(spec.url, { poolSize: 2 });
const hilo = createHiLo({ client, blockSize: spec.blockSize, create: true });
const pool = new pg.Pool({ connectionString: spec.url, max: 1 });

async function* input(): AsyncGenerator<GraphNode> {
  for (let o = 0; o < spec.orders; o++) {
    const children = Array.from({ length: spec.items }, (_, i) => ({
      table: 'items',
      row: { sku: `p${process.pid}-${i}` },
    }));
    yield { table: 'orders', row: { customer: `c${process.pid}-${o}` }, children };
  }
}

try {
  const result = await loadGraph({
    target: pgGraphTarget({ pool }),
    generator: hilo,
    tables: [
      { table: 'orders', key: 'id', columns: ['customer'] },
      { table: 'items', key: 'id', columns: ['sku'], references: [{ column: 'order_id', table: 'orders' }] },
    ],
    input: input(),
    batchRows: spec.batchRows,
  });
  console.log(`done ${result.rows.orders! + result.rows.items!}`);
} finally {
  await hilo.close();
  await client.close();
  await pool.end();
}
