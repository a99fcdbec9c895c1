import mysql from 'mysql2/promise';
import { describeMysql } from '@hilo/testing';
import {
  readmePrograms,
  runReadmeProgram,
  type ProgramRun,
  type ReadmeProgram,
} from './readme-programs.test-support.ts';

// README programs on MariaDB, each run as in readme-programs.postgres.test.ts: hilo-core's sources.ts as written
// (connect() takes a mysql:// URL), and hilo-typeorm's shop.ts with the one change its Install section implies
// (`type: 'mariadb'`): the entities must not use PostgreSQL-only column types. Each then runs a second time on what
// the first left behind and must again exit 0 with nothing on stderr.

function program(id: string): ReadmeProgram {
  const found = readmePrograms().find((p) => p.id === id);
  if (found === undefined) throw new Error(`no README program ${id}`);
  return found;
}

/** A second run on what the first left behind, as a user trying the program twice does: exit 0, nothing on stderr. */
async function expectCleanSecondRun(run: ProgramRun): Promise<void> {
  const second = await run.again();
  expect({ second: { code: second.code, stderr: second.stderr } }).toEqual({ second: { code: 0, stderr: '' } });
}

async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const connection = await mysql.createConnection(url);
  try {
    return (await connection.query(sql))[0] as Record<string, unknown>[];
  } finally {
    await connection.end();
  }
}

describeMysql('README programs run as written on MariaDB: hilo-typeorm', (db) => {
  it("hilo-typeorm's shop.ts runs on MariaDB with type: 'mariadb'", async () => {
    const run = await runReadmeProgram(
      program('packages/typeorm/README.md:shop.ts'),
      { DATABASE_URL: db.url },
      { edit: (code) => code.replace("type: 'postgres'", "type: 'mariadb'") },
    );
    try {
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const printed = /^order (\d+) of customer (\d+), first item (\d+)\n$/.exec(run.stdout);
      expect(printed).not.toBeNull();
      expect(await query(db.url, 'select id, customerId c from orders')).toEqual([
        { id: Number(printed![1]), c: Number(printed![2]) },
      ]);
      expect(await query(db.url, 'select id, orderId o from order_items')).toEqual([
        { id: Number(printed![3]), o: Number(printed![1]) },
      ]);
      await expectCleanSecondRun(run);
    } finally {
      run.remove();
    }
  });
});

describeMysql('README programs run as written on MariaDB: hilo-drizzle', (db) => {
  it("hilo-drizzle's orders-mysql.ts stores parents and children under the keys it took before the insert", async () => {
    const run = await runReadmeProgram(program('packages/drizzle/README.md:orders-mysql.ts'), { DATABASE_URL: db.url });
    try {
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const printed = /^orders (\d+), (\d+), (\d+) stored with 6 items\n$/.exec(run.stdout);
      expect(printed).not.toBeNull();
      const ids = printed!.slice(1).map(Number);
      expect(await query(db.url, 'select id, reference from orders order by reference')).toEqual(
        ids.map((id, i) => ({ id, reference: `A-${i + 1}` })),
      );
      const items = await query(db.url, 'select order_id o, sku from order_items order by id');
      expect(items).toEqual(
        ids.flatMap((o) => [
          { o, sku: 'TEA' },
          { o, sku: 'CAKE' },
        ]),
      );
      await expectCleanSecondRun(run);
    } finally {
      run.remove();
    }
  });
});

describeMysql('README programs run as written on MariaDB: hilo-core', (db) => {
  it("hilo-core's sources.ts reserves a block in hilo_segments and hands out key 1", async () => {
    const run = await runReadmeProgram(program('packages/core/README.md:sources.ts'), { DATABASE_URL: db.url });
    try {
      expect({ code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
        code: 0,
        stderr: '',
        stdout: 'order 1\n',
      });
      expect(await query(db.url, `select segment from hilo_segments`)).toEqual([{ segment: 'orders' }]);
      await expectCleanSecondRun(run);
    } finally {
      run.remove();
    }
  });
});
