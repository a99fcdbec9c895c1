import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { createPostgresDatabase, describePostgres } from '@hilo/testing';
import { extractBlocks } from '../check-readmes.ts';
import { limited, readmePrograms, root, runReadmeProgram, type ProgramRun } from './readme-programs.test-support.ts';

// Every README block marked ```ts program runs here as written: copied with the README's other named blocks into
// a folder of its own and run with Node (tsx), against a fresh PostgreSQL database where it reads DATABASE_URL,
// or SQLite files in its folder (one marked in=FOLDER runs in that folder, among the files it imports). Each must
// exit 0 on its own (creating its tables, closing its connections), print nothing on stderr, and print the keys it
// says it prints; what it stored is read back. Then it runs a second time, on what the first left behind, as a
// user trying it twice does, and must again exit 0 with nothing on stderr (PostgreSQL's NOTICE "relation …
// already exists, skipping" for a CREATE TABLE IF NOT EXISTS reached stderr that way).

interface Expectation {
  /** What DATABASE_URL points at: a fresh PostgreSQL database, or nothing (SQLite in its folder, memory). */
  readonly database: 'postgres' | 'none';
  /** The whole of stdout. */
  readonly printed: RegExp;
  /** What the program left behind, read after it exited. */
  readonly stored?: (printed: RegExpExecArray, where: { url: string; dir: string }) => Promise<void> | void;
}

async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

function sqlite(file: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** A customer and 1,000 orders of it in shop.db, each order with a key of its own (the Drizzle and Kysely programs). */
function customerWithOrders(printed: RegExpExecArray, { dir }: { dir: string }): void {
  const file = join(dir, 'shop.db');
  expect(sqlite(file, 'select id from customers')).toEqual([{ id: Number(printed[1]) }]);
  expect(
    sqlite(file, 'select count(*) n, count(distinct id) keys, min(customer_id) c, max(customer_id) d from orders'),
  ).toEqual([{ n: 1000, keys: 1000, c: Number(printed[1]), d: Number(printed[1]) }]);
}

/** The ```text block that follows `intro` in a README. */
function readmeText(readme: string, intro: string): string {
  const text = readFileSync(join(root, readme), 'utf8');
  const block = new RegExp(`^${escape(intro)}\\n\\n\`\`\`text\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(text);
  if (block === null) throw new Error(`${readme}: no text block after "${intro}"`);
  return block[1]!;
}

/** `printed` with every number in it free: a second run prints later keys (and nothing else, no notice). */
const anyNumbers = (printed: RegExp) =>
  new RegExp(printed.source.replace(/\{\d+\}|\d+/g, (found) => (found.startsWith('{') ? found : '\\d+')));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const expectations: Record<string, Expectation> = {
  'packages/core/README.md:usage.ts': { database: 'none', printed: /^1 2 1000\n$/ },
  'packages/core/README.md:sources.ts': {
    database: 'postgres',
    printed: /^order 1\n$/,
    stored: async (_, { url }) =>
      expect(
        await query(url, `select increment_by::int i from pg_sequences where sequencename = 'orders_hilo_seq'`),
      ).toEqual([{ i: 100 }]),
  },
  'packages/drizzle/README.md:shop.ts': {
    database: 'none',
    printed: /^customer (\d+) and 1,000 orders stored\n$/,
    stored: customerWithOrders,
  },
  'packages/drizzle/README.md:customers.ts': {
    database: 'postgres',
    printed: /^customer (\d+) stored\n$/,
    stored: async (printed, { url }) =>
      expect(await query(url, 'select id::int, name from customers')).toEqual([
        { id: Number(printed[1]), name: 'Ada' },
      ]),
  },
  'packages/kysely/README.md:shop.ts': {
    database: 'none',
    printed: /^customer (\d+) and 1,000 orders stored\n$/,
    stored: customerWithOrders,
  },
  'packages/mikro-orm/README.md:shop.ts': {
    database: 'postgres',
    // exactly the output the README shows after the program
    printed: new RegExp(`^${escape(readmeText('packages/mikro-orm/README.md', 'It prints, on an empty database:'))}$`),
    stored: async (_, { url }) =>
      // Ada and the batch's 20 (neither the rolled-back customer nor the last, never flushed); 1 + 1 + 40 orders
      expect(
        await query(
          url,
          'select (select count(*) from customers)::int c, (select count(*) from orders)::int o, ' +
            '(select count(*) from order_items)::int i, (select max(id) from customers)::int k',
        ),
      ).toEqual([{ c: 21, o: 42, i: 123, k: 21 }]),
  },
  'packages/prisma/README.md:run-quick-start.ts': {
    database: 'postgres',
    printed: /^keys: ((?:\d+, ){12}\d+)\n$/,
    stored: async (printed, { url }) => {
      const [customer, ...orders] = printed[1]!.split(', ').map(Number);
      const item = orders.pop()!;
      expect(await query(url, 'select id::int from customers')).toEqual([{ id: customer }]);
      // the 10 orders of the createMany and the nested create's, under the keys returned; not the rolled-back one
      expect((await query(url, 'select id::int from orders order by id')).map((r) => r['id'])).toEqual(
        [...orders].sort((a, b) => a - b),
      );
      expect(
        await query(
          url,
          `select order_id::int o, (select count(*)::int from order_items) n from order_items where id = ${item}`,
        ),
      ).toEqual([{ o: orders.at(-1), n: 51 }]);
    },
  },
  'packages/typeorm/README.md:shop.ts': {
    database: 'postgres',
    printed: /^order (\d+) of customer (\d+), first item (\d+)\n$/,
    stored: async (printed, { url }) => {
      // the order and its item under the keys printed before the save; the rolled-back order is not there
      expect(await query(url, 'select id::int, "customerId"::int c from orders')).toEqual([
        { id: Number(printed[1]), c: Number(printed[2]) },
      ]);
      expect(await query(url, 'select id::int, "orderId"::int o from order_items')).toEqual([
        { id: Number(printed[3]), o: Number(printed[1]) },
      ]);
      expect(await query(url, 'select count(*)::int n from customers')).toEqual([{ n: 1 }]);
    },
  },
  'packages/typeorm/README.md:library.ts': {
    database: 'none',
    printed: /^author (\d+), books (\d+), (\d+)\n$/,
    stored: (printed, { dir }) =>
      expect(sqlite(join(dir, 'library.db'), 'select id, authorId a from books order by id')).toEqual([
        { id: Number(printed[2]), a: Number(printed[1]) },
        { id: Number(printed[3]), a: Number(printed[1]) },
      ]),
  },
};

/** Programs for MariaDB/MySQL alone: readme-programs.mysql.test.ts runs them. */
export const MYSQL_PROGRAMS = ['packages/drizzle/README.md:orders-mysql.ts'];

const programs = readmePrograms().filter((p) => !MYSQL_PROGRAMS.includes(p.id));

describe('README programs: which run', () => {
  it('every program block has its expectations here or runs on MariaDB, and every expectation a program block', () => {
    expect(programs.map((p) => p.id).sort()).toEqual(Object.keys(expectations).sort());
    const all = readmePrograms().map((p) => p.id);
    for (const id of MYSQL_PROGRAMS) expect(all).toContain(id);
  });
});

describePostgres('README programs run as written', () => {
  const runs = new Map<
    string,
    Promise<{ run: ProgramRun; url: string; stored: Error | undefined; second: ProgramRun }>
  >();
  const drops: (() => Promise<void>)[] = [];

  beforeAll(() => {
    // three at a time on two cores: each is a Node.js process compiling its imports, and waits on the database
    const started = limited(programs, 3, async (program) => {
      const expected = expectations[program.id];
      let url = '';
      if (expected?.database === 'postgres') {
        const db = await createPostgresDatabase();
        drops.push(db.drop);
        url = db.url;
      }
      const run = await runReadmeProgram(program, url === '' ? {} : { DATABASE_URL: url }, { timeoutMs: 30_000 });
      // what the first run stored is read before the second adds to it; a failed expectation is rethrown by the test
      let stored: Error | undefined;
      const printed = expected?.printed.exec(run.stdout);
      if (run.code === 0 && printed)
        await Promise.resolve(expected?.stored?.(printed, { url, dir: run.dir })).catch(
          (error: unknown) => (stored = error instanceof Error ? error : new Error(String(error))),
        );
      const second = await run.again();
      return { run, url, stored, second };
    });
    programs.forEach((program, i) => runs.set(program.id, started[i]!));
    for (const run of runs.values()) run.catch(() => undefined); // reported by the test that awaits it
  });

  afterAll(async () => {
    const settled = await Promise.allSettled(runs.values());
    const times = [...runs.keys()].map((id, i) => {
      const result = settled[i]!;
      const seconds =
        result.status === 'fulfilled'
          ? `${(result.value.run.ms / 1000).toFixed(1)} s + ${(result.value.second.ms / 1000).toFixed(1)}`
          : '?';
      return `${id.replace(/^packages\/|\/README\.md/g, '')} ${seconds} s`;
    });
    process.stderr.write(`README programs: ${times.join(', ')}\n`);
    for (const result of settled) if (result.status === 'fulfilled') result.value.run.remove();
    await Promise.all(drops.map((drop) => drop()));
  });

  it.each(programs.map((p) => [p.id]))(
    '%s exits 0, prints its keys and stores what it says',
    async (id) => {
      const { run, stored, second } = await runs.get(id)!;
      const expected = expectations[id]!;
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(expected.printed);
      if (stored !== undefined) throw stored;
      expect({ second: { code: second.code, stderr: second.stderr, stdout: second.stdout } }).toEqual({
        second: { code: 0, stderr: '', stdout: expect.stringMatching(anyNumbers(expected.printed)) },
      });
    },
    240_000,
  ); // queued behind the others, then up to 30 s of its own, twice
});

// Not a program of its own (a Nest module needs an app around it): hilo-typeorm's NestJS module with the README's
// entities.ts, in a CommonJS app on examples/nestjs's Nest 12 and TypeORM 1.x. Its entity list once lacked OrderItem,
// which Order#items needs ("Entity metadata for Order#items was not found"); it once created no tables either
// ("relation customers does not exist"): main.ts leaves that to the module, as a user's app would.
describePostgres("README programs run as written on PostgreSQL: hilo-typeorm's NestJS module", (db) => {
  it('boots with the README entities and saves an order with its item under the keys create() gave', async () => {
    const readme = 'packages/typeorm/README.md';
    const main = `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Customer, Order } from './entities';
import { ShopModule } from './shop.module';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ShopModule, { logger: false, abortOnError: false });
  try {
    const customers = app.get<Repository<Customer>>(getRepositoryToken(Customer));
    const orders = app.get<Repository<Order>>(getRepositoryToken(Order));
    const ada = await customers.save(customers.create({ name: 'Ada', email: 'ada@example.com' }));
    const order = orders.create({ customerId: ada.id, items: [{ sku: 'TEA', quantity: 1, priceCents: 450 }] });
    console.log(\`order \${order.id}, item \${order.items[0]!.id}\`);
    await orders.save(order);
  } finally {
    await app.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;
    // the block under `src/shop.module.ts`: (marked skip for the ES-module compile check, so not named by it)
    const nestModule = extractBlocks(readme, readFileSync(join(root, readme), 'utf8')).find((b) =>
      b.code.includes('TypeOrmModule.forRootAsync'),
    )!.code;
    const run = await runReadmeProgram(
      { readme, file: 'main.ts' },
      { DATABASE_URL: db.url },
      { app: 'examples/nestjs', files: { 'main.ts': main, 'shop.module.ts': nestModule } },
    );
    try {
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const printed = /^order (\d+), item (\d+)\n$/.exec(run.stdout);
      expect(printed).not.toBeNull();
      expect(await query(db.url, 'select id::int, "orderId"::int o from order_items')).toEqual([
        { id: Number(printed![2]), o: Number(printed![1]) },
      ]);
    } finally {
      run.remove();
    }
  }, 90_000);
});
