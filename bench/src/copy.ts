// `pnpm bench copy` (issue 55): a graph of orders with their items loaded side by side on PostgreSQL, with the
// foreign key and its index in place — by loadGraph (binary COPY, keys from hilo), by identity multi-row
// `INSERT … RETURNING id` (the application needs the orders' keys to write their items), by hilo's keys and
// multi-row INSERTs, and by a raw binary COPY whose keys were computed before the clock started — plus the memory a
// graph load holds while it streams a million children.
import pg from 'pg';
import { createHiLoGenerator, loadGraph, pgClient, pgGraphTarget, sequenceSource, type GraphNode } from 'hilo-core';
import type { Result } from './measure.js';

const ORDERS = Number(process.env.HILO_BENCH_COPY_ORDERS ?? 40_000);
const ITEMS_PER_ORDER = 5;
/** Orders per round of each lane (and per statement of the INSERT lanes): the same batch sizes for every lane. */
const ROUND_ORDERS = 1_000;
const RSS_CHILDREN = Number(process.env.HILO_BENCH_COPY_RSS_CHILDREN ?? 1_000_000);

const ORDER_COLUMNS = ['customer', 'placed_at', 'total'] as const;
const ITEM_COLUMNS = ['order_id', 'sku', 'qty', 'price'] as const;

function orderRow(n: number): Record<string, unknown> {
  return {
    customer: `customer ${n % 9973}`,
    placed_at: new Date(1_700_000_000_000 + n * 1000),
    total: `${n % 1000}.50`,
  };
}

function itemRow(n: number, i: number): Record<string, unknown> {
  return { sku: `SKU-${(n + i) % 701}`, qty: 1 + (i % 4), price: `${(n * 7 + i) % 500}.99` };
}

interface Order {
  readonly row: Record<string, unknown>;
  readonly children: readonly { readonly row: Record<string, unknown> }[];
}

function graph(from: number, count: number): Order[] {
  return Array.from({ length: count }, (_, k) => ({
    row: orderRow(from + k),
    children: Array.from({ length: ITEMS_PER_ORDER }, (_, i) => ({ row: itemRow(from + k, i) })),
  }));
}

async function createTables(client: pg.Client, lane: string, identity: boolean): Promise<void> {
  const key = identity ? 'bigint generated always as identity primary key' : 'bigint primary key';
  await client.query(`drop table if exists ${lane}_items, ${lane}_orders`);
  await client.query(
    `create table ${lane}_orders (id ${key}, customer text not null, placed_at timestamptz not null, total numeric(12,2))`,
  );
  await client.query(
    `create table ${lane}_items (id ${key}, order_id bigint not null references ${lane}_orders (id), sku text not null,
                                 qty int4 not null, price numeric(12,2) not null)`,
  );
  await client.query(`create index on ${lane}_items (order_id)`);
}

/** A multi-row INSERT of `rows` rows of `columns`, optionally returning the ids. */
function insertText(table: string, columns: readonly string[], rows: number, returning: boolean): string {
  const width = columns.length;
  const values = Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
  );
  return `insert into ${table} (${columns.join(', ')}) values ${values.join(', ')}${returning ? ' returning id' : ''}`;
}

interface Lane {
  readonly name: string;
  ms: number;
  /** Loads orders `from`..`from + count - 1` with their items. */
  load(from: number, count: number): Promise<void>;
}

/**
 * The four lanes side by side, rounds of `ROUND_ORDERS` orders interleaved in rotating order so that whatever the
 * machine does meanwhile falls on all of them alike; each round of each lane is one transaction.
 */
async function sideBySide(url: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const generator = createHiLoGenerator({
    source: sequenceSource(pgClient(pool), { increment: 10_000, create: true }),
    blockSize: 10_000,
  });
  try {
    for (const lane of ['graph', 'hiloins', 'rawcopy']) await createTables(client, lane, false);
    await createTables(client, 'ident', true);
    const graphTables = [
      { table: 'graph_orders', key: 'id', segment: 'graph_orders', columns: [...ORDER_COLUMNS] },
      {
        table: 'graph_items',
        key: 'id',
        segment: 'graph_items',
        columns: ITEM_COLUMNS.slice(1),
        references: [{ column: 'order_id', table: 'graph_orders' }],
      },
    ];
    const target = pgGraphTarget({ connection: client });
    // the raw COPY's keys and rows, made before the clock starts, written through the same COPY encoder
    const raw = await pgGraphTarget({ connection: client }).open();
    const rawOrders = await raw.tableWriter({ table: 'rawcopy_orders', schema: undefined }, ['id', ...ORDER_COLUMNS]);
    const rawItems = await raw.tableWriter({ table: 'rawcopy_items', schema: undefined }, ['id', ...ITEM_COLUMNS]);
    const itemText = insertText('hiloins_items', ['id', ...ITEM_COLUMNS], ROUND_ORDERS * ITEMS_PER_ORDER, false);
    const orderText = insertText('hiloins_orders', ['id', ...ORDER_COLUMNS], ROUND_ORDERS, false);
    const identOrders = insertText('ident_orders', ORDER_COLUMNS, ROUND_ORDERS, true);
    const identItems = insertText('ident_items', ITEM_COLUMNS, ROUND_ORDERS * ITEMS_PER_ORDER, false);
    const lanes: Lane[] = [
      {
        name: 'graph',
        ms: 0,
        async load(from, count) {
          const nodes: GraphNode[] = graph(from, count).map((order) => ({
            table: 'graph_orders',
            row: order.row,
            children: order.children.map((child) => ({ table: 'graph_items', row: child.row })),
          }));
          const start = performance.now();
          await loadGraph({
            target,
            generator,
            tables: graphTables,
            input: nodes,
            batchRows: count * (1 + ITEMS_PER_ORDER),
          });
          this.ms += performance.now() - start;
        },
      },
      {
        name: 'identity',
        ms: 0,
        async load(from, count) {
          const orders = graph(from, count);
          const start = performance.now();
          await client.query('begin');
          const values = orders.flatMap((o) => ORDER_COLUMNS.map((c) => o.row[c]));
          const { rows } = await client.query<{ id: string }>({ name: 'ident_orders', text: identOrders, values });
          const items: unknown[] = [];
          orders.forEach((o, k) => {
            for (const child of o.children) items.push(rows[k]!.id, ...ITEM_COLUMNS.slice(1).map((c) => child.row[c]));
          });
          await client.query({ name: 'ident_items', text: identItems, values: items });
          await client.query('commit');
          this.ms += performance.now() - start;
        },
      },
      {
        name: 'hilo_insert',
        ms: 0,
        async load(from, count) {
          const orders = graph(from, count);
          const start = performance.now();
          const orderKeys = await generator.reserve('hiloins_orders', count);
          const itemKeys = await generator.reserve('hiloins_items', count * ITEMS_PER_ORDER);
          await client.query('begin');
          const values = orders.flatMap((o, k) => [orderKeys[k], ...ORDER_COLUMNS.map((c) => o.row[c])]);
          await client.query({ name: 'hiloins_orders', text: orderText, values });
          const items: unknown[] = [];
          let i = 0;
          orders.forEach((o, k) => {
            for (const child of o.children) {
              items.push(itemKeys[i++], orderKeys[k], ...ITEM_COLUMNS.slice(1).map((c) => child.row[c]));
            }
          });
          await client.query({ name: 'hiloins_items', text: itemText, values: items });
          await client.query('commit');
          this.ms += performance.now() - start;
        },
      },
      {
        name: 'raw_copy',
        ms: 0,
        async load(from, count) {
          const orders = graph(from, count);
          const orderKeys = await generator.reserve('rawcopy_orders', count);
          const itemKeys = await generator.reserve('rawcopy_items', count * ITEMS_PER_ORDER);
          const orderRows = orders.map((o, k) => [orderKeys[k], ...ORDER_COLUMNS.map((c) => o.row[c])]);
          let i = 0;
          const itemRows = orders.flatMap((o, k) =>
            o.children.map((child) => [itemKeys[i++], orderKeys[k], ...ITEM_COLUMNS.slice(1).map((c) => child.row[c])]),
          );
          const start = performance.now();
          await client.query('begin');
          await rawOrders.write(orderRows);
          await rawItems.write(itemRows);
          await client.query('commit');
          this.ms += performance.now() - start;
        },
      },
    ];
    await client.query('checkpoint');
    for (let from = 0, round = 0; from < ORDERS; from += ROUND_ORDERS, round++) {
      const count = Math.min(ROUND_ORDERS, ORDERS - from);
      for (let l = 0; l < lanes.length; l++) await lanes[(round + l) % lanes.length]!.load(from, count);
    }
    for (const lane of ['graph', 'hiloins', 'rawcopy', 'ident']) {
      const n = Number((await client.query<{ n: string }>(`select count(*) as n from ${lane}_items`)).rows[0]!.n);
      if (n !== ORDERS * ITEMS_PER_ORDER)
        throw new Error(`${lane}_items holds ${n} rows, expected ${ORDERS * ITEMS_PER_ORDER}`);
      await client.query(`drop table ${lane}_items, ${lane}_orders`);
    }
    return new Map(lanes.map((lane) => [lane.name, lane.ms]));
  } finally {
    await generator.close();
    await pool.end();
    await client.end();
  }
}

/** RSS growth while one load streams `RSS_CHILDREN` items (under `RSS_CHILDREN / 5` orders) from a generator. */
async function rssPerMillionChildren(url: string): Promise<{ mb: number; rowsPerSecond: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const generator = createHiLoGenerator({
    source: sequenceSource(pgClient(pool), { increment: 10_000, create: true }),
    blockSize: 10_000,
  });
  try {
    await createTables(client, 'rss', false);
    const orders = Math.ceil(RSS_CHILDREN / ITEMS_PER_ORDER);
    let peak = 0;
    async function* input(): AsyncGenerator<GraphNode> {
      for (let n = 0; n < orders; n++) {
        if (n % 2000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
        yield {
          table: 'rss_orders',
          row: orderRow(n),
          children: Array.from({ length: ITEMS_PER_ORDER }, (_, i) => ({ table: 'rss_items', row: itemRow(n, i) })),
        };
      }
    }
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().rss;
    const start = performance.now();
    await loadGraph({
      target: pgGraphTarget({ connection: client }),
      generator,
      tables: [
        { table: 'rss_orders', key: 'id', columns: [...ORDER_COLUMNS] },
        {
          table: 'rss_items',
          key: 'id',
          columns: ITEM_COLUMNS.slice(1),
          references: [{ column: 'order_id', table: 'rss_orders' }],
        },
      ],
      input: input(),
    });
    const ms = performance.now() - start;
    peak = Math.max(peak, process.memoryUsage().rss);
    await client.query('drop table rss_items, rss_orders');
    return {
      mb: (peak - before) / 2 ** 20 / ((orders * ITEMS_PER_ORDER) / 1e6),
      rowsPerSecond: ((orders * (1 + ITEMS_PER_ORDER)) / ms) * 1000,
    };
  } finally {
    await generator.close();
    await pool.end();
    await client.end();
  }
}

/** The copy phase's figures: ratios of the lanes' total times (higher is better for the graph load). */
export async function copyBenchmarks(url: string): Promise<Result[]> {
  const times = await sideBySide(url);
  const graphMs = times.get('graph')!;
  const rows = ORDERS * (1 + ITEMS_PER_ORDER);
  const rate = (ms: number) => `${Math.round((rows / ms) * 1000).toLocaleString('en-US')} rows/s`;
  const shape =
    `${ORDERS.toLocaleString('en-US')} orders × ${ITEMS_PER_ORDER} items, FK and its index kept, rounds of ` +
    `${ROUND_ORDERS} orders interleaved, one transaction per round; graph load ${rate(graphMs)}`;
  const rss = await rssPerMillionChildren(url);
  return [
    {
      name: 'copy.pg.graph_vs_identity',
      value: (rows / graphMs) * 1000,
      unit: 'rows/s',
      ratio: times.get('identity')! / graphMs,
      target: 1.3,
      note: `${shape}; identity multi-row INSERT … RETURNING id ${rate(times.get('identity')!)}; target ≥ 1.3`,
    },
    {
      name: 'copy.pg.graph_vs_raw_copy',
      value: (rows / graphMs) * 1000,
      unit: 'rows/s',
      ratio: times.get('raw_copy')! / graphMs,
      target: 0.95,
      note: `${shape}; binary COPY of rows keyed before the clock started (same encoder) ${rate(times.get('raw_copy')!)}; target ≥ 0.95`,
    },
    {
      name: 'copy.pg.graph_vs_hilo_insert',
      value: (rows / graphMs) * 1000,
      unit: 'rows/s',
      ratio: times.get('hilo_insert')! / graphMs,
      note: `${shape}; hilo keys with multi-row INSERTs ${rate(times.get('hilo_insert')!)}`,
    },
    {
      name: 'copy.pg.rss_mb_per_million_children',
      value: rss.mb,
      unit: 'MB',
      note:
        `RSS growth while one loadGraph() streamed ${RSS_CHILDREN.toLocaleString('en-US')} items under their orders ` +
        `(default batchRows), ${Math.round(rss.rowsPerSecond).toLocaleString('en-US')} rows/s; target ≤ 64`,
    },
  ];
}
