import { randomName, type TestDatabase } from '@hilo/testing';
import { expectSuccess, hilo, isIncreasing, keysOf } from './run-cli.js';

/** Runs one SQL statement on the test database (to create tables of "existing" rows). */
export type Execute = (sql: string) => Promise<void>;

/**
 * The command's behaviour on one database and source kind: concurrent processes never share a key, and
 * `floor` lifts a segment above existing rows without ever lowering it.
 */
export function cliSuite(db: TestDatabase, source: 'sequence' | 'table', execute: () => Execute): void {
  const url = () => db.url;

  it(`six concurrent \`hilo next --count 20000\` print 120,000 distinct keys, each process increasing (${source})`, async () => {
    const segment = `orders_${source}`;
    const init = await hilo(['init', '--url', url(), '--source', source, '--block-size', '50', segment]);
    expectSuccess(init);
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        hilo(['next', '--unverified', '--url', url(), '--source', source, '--count', '20000', segment]),
      ),
    );
    const all = new Set<bigint>();
    for (const run of runs) {
      const keys = keysOf(run);
      expect(run.stderr).toBe('');
      expect(keys).toHaveLength(20_000);
      expect(isIncreasing(keys)).toBe(true);
      for (const key of keys) all.add(key);
    }
    expect(all.size).toBe(120_000);
  });

  it(`init is idempotent and reports a block size that contradicts the database (${source})`, async () => {
    const segment = `idem_${source}`;
    for (let i = 0; i < 2; i++) {
      const run = await hilo(['init', '--url', url(), '--source', source, '--block-size', '20', '--json', segment]);
      expectSuccess(run);
      expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ segment, source })]);
    }
    const next = await hilo([
      'next',
      '--unverified',
      '--url',
      url(),
      '--source',
      source,
      '--block-size',
      '30',
      segment,
    ]);
    if (source === 'sequence') {
      // INCREMENT BY 20 in the database: using 30 could hand out duplicates
      expect(next.code).toBe(2);
      expect(next.stderr).toMatch(/INCREMENT BY 20.*--block-size 20/);
    } else {
      expect(keysOf(next)).toHaveLength(1);
    }
  });

  it(`alter shrinks a block size without handing out a key twice (${source})`, async () => {
    const segment = `alter_${source}`;
    expectSuccess(await hilo(['init', '--url', url(), '--source', source, '--block-size', '100', segment]));
    const before = keysOf(
      await hilo([
        'next',
        '--unverified',
        '--url',
        url(),
        '--source',
        source,
        '--block-size',
        '100',
        '--count',
        '150',
        segment,
      ]),
    );
    const alter = await hilo(['alter', '--url', url(), '--source', source, '--block-size', '40', '--json', segment]);
    expectSuccess(alter);
    expect(JSON.parse(alter.stdout)).toEqual(
      source === 'sequence'
        ? { segment, source, from: 100, to: 40, changed: true }
        : { segment, source, blockSize: 40, changed: false },
    );
    const after = keysOf(
      await hilo([
        'next',
        '--unverified',
        '--url',
        url(),
        '--source',
        source,
        '--block-size',
        '40',
        '--count',
        '50',
        segment,
      ]),
    );
    expect(after).toHaveLength(50);
    expect(after[0]!).toBeGreaterThan(before.at(-1)!);
    const missing = await hilo(['alter', '--url', url(), '--source', source, segment]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--block-size/);
  });

  it(`floor lifts a segment above max(id) of an existing table and never lowers it (${source})`, async () => {
    const run = execute();
    const items = `items_${source}`;
    const small = `small_${source}`;
    await run(`create table ${items} (id bigint primary key)`);
    await run(`insert into ${items} (id) values (7), (4242), (300)`);
    await run(`create table ${small} (code bigint)`);
    await run(`insert into ${small} (code) values (10)`);
    const segment = `floor_${source}`;
    expectSuccess(await hilo(['init', '--url', url(), '--source', source, segment]));
    const before = keysOf(
      await hilo(['next', '--unverified', '--url', url(), '--source', source, '--count', '3', segment]),
    );
    expect(before[0]!).toBeLessThan(4242n);

    const floor = await hilo(['floor', '--url', url(), '--source', source, segment, '--from', items, '--json']);
    expectSuccess(floor);
    expect(JSON.parse(floor.stdout)).toEqual(expect.objectContaining({ segment, maxKey: '4242', raised: true }));
    const after = keysOf(
      await hilo(['next', '--unverified', '--url', url(), '--source', source, '--count', '5', segment]),
    );
    expect(after.every((key) => key > 4242n)).toBe(true);

    // a lower maximum, or the same one again, moves nothing
    for (const from of [`${small}.code`, `${items}.id`]) {
      const again = await hilo(['floor', '--url', url(), '--source', source, segment, '--from', from, '--json']);
      expectSuccess(again);
      expect(JSON.parse(again.stdout)).toEqual(expect.objectContaining({ raised: false }));
    }
    const later = keysOf(
      await hilo(['next', '--unverified', '--url', url(), '--source', source, '--count', '5', segment]),
    );
    expect(later[0]!).toBeGreaterThan(after.at(-1)!);
  });

  it(`floor from one tenant's table into a shared store is refused; '*.TABLE.COLUMN' lifts above every tenant (${source})`, async () => {
    const run = execute();
    // random names: on MariaDB the catalog is the server's, and every database holding the table is a tenant
    const table = randomName('tenant_orders');
    const [a, b] = [randomName('tenant'), randomName('tenant')];
    const postgres = db.kind === 'postgres';
    try {
      for (const [tenant, key] of [
        [a, 70],
        [b, 7000],
      ] as const) {
        await run(`create schema ${tenant}`);
        await run(`create table ${tenant}.${table} (id bigint primary key)`);
        await run(`insert into ${tenant}.${table} (id) values (${key})`);
      }
      const segment = `tenants_${source}`;
      const one = await hilo(['floor', '--url', url(), '--source', source, segment, '--from', `${a}.${table}.id`]);
      expect(one.code).toBe(2);
      expect(one.stderr).toContain(`${b}.${table}`);
      const every = await hilo([
        'floor',
        '--url',
        url(),
        '--source',
        source,
        segment,
        '--from',
        `*.${table}.id`,
        '--json',
      ]);
      expectSuccess(every);
      expect(JSON.parse(every.stdout)).toEqual(expect.objectContaining({ segment, maxKey: '7000', raised: true }));
      const keys = keysOf(
        await hilo(['next', '--unverified', '--url', url(), '--source', source, '--count', '3', segment]),
      );
      expect(keys.every((key) => key > 7000n)).toBe(true);
    } finally {
      for (const tenant of [a, b]) await run(`drop schema if exists ${tenant}${postgres ? ' cascade' : ''}`);
    }
  });

  it(`floor creates a missing segment above existing rows, and status shows it (${source})`, async () => {
    const run = execute();
    const legacy = `legacy_${source}`;
    await run(`create table ${legacy} (legacy_id bigint)`);
    await run(`insert into ${legacy} (legacy_id) values (99999)`);
    const segment = `adopted_${source}`;
    const floor = await hilo(['floor', '--url', url(), '--source', source, segment, '--from', `${legacy}.legacy_id`]);
    expectSuccess(floor);
    expect(floor.stdout).toMatch(/raised/);
    const [key] = keysOf(await hilo(['next', '--unverified', '--url', url(), '--source', source, segment]));
    expect(key!).toBeGreaterThan(99999n);
    const status = await hilo(['status', '--url', url(), '--source', source, '--json']);
    expectSuccess(status);
    const rows = JSON.parse(status.stdout) as { segment: string; source: string }[];
    expect(rows).toContainEqual(expect.objectContaining({ segment, source }));
    expect(rows.every((row) => row.source === source)).toBe(true);
  });

  it(`status shows how much of the key column's range a segment has used, and warns at 90 % (${source})`, async () => {
    const run = execute();
    const legacy = `near_int_${source}`;
    await run(`create table ${legacy} (id bigint)`);
    await run(`insert into ${legacy} (id) values (2000000000)`);
    const segment = `near_${source}`;
    expectSuccess(await hilo(['floor', '--url', url(), '--source', source, segment, '--from', legacy]));
    keysOf(await hilo(['next', '--unverified', '--url', url(), '--source', source, segment]));
    // four reads of the same state, started together
    const [json, table, roomy, bad] = await Promise.all([
      hilo(['status', '--url', url(), '--source', source, '--max-key', 'int', '--json']),
      hilo(['status', '--url', url(), '--source', source, '--max-key', 'int']),
      hilo(['status', '--url', url(), '--source', source, '--json']),
      hilo(['status', '--url', url(), '--max-key', 'huge']),
    ]);
    expectSuccess(json);
    type Row = { segment: string; used: number; maxKey: string; value: string; increment: string | null };
    const row = (JSON.parse(json.stdout) as Row[]).find((r) => r.segment === segment)!;
    expect(row.maxKey).toBe('2147483647');
    expect(row.used).toBeGreaterThan(0.93);
    expect(row.used).toBeLessThan(1);
    // the highest key the store stands for over maxKey, to six decimal places
    const highest = Number(row.value) + (source === 'sequence' ? Number(row.increment) - 1 : 0);
    expect(row.used).toBe(Number((highest / 2147483647).toFixed(6)));
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/USED/);
    expect(table.stdout).toMatch(new RegExp(`${segment}\\s.*\\s9\\d\\.\\d %`));
    expect(table.stderr).toMatch(new RegExp(`segment "${segment}" has used 9\\d\\.\\d % of its keys up to 2147483647`));
    // with bigint columns (the default) the same segment has barely started: 2e9 of 9.2e18 reads as 0, a plain
    // number, not 2.2e-10
    expect(
      (JSON.parse(roomy.stdout) as { segment: string; used: number }[]).find((r) => r.segment === segment)!.used,
    ).toBe(0);
    expect(roomy.stdout).not.toMatch(/"used": [\d.]+e/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-key.*smallint, int, bigint/);
  });

  it(`init --guard makes the database reject a row without a key and accept keyed rows; twice is fine (${source})`, async () => {
    const run = execute();
    const orders = `guard_orders_${source}`;
    const items = `guard_items_${source}`;
    await run(`create table ${orders} (id bigint not null primary key, reference varchar(20) not null)`);
    await run(`create table ${items} (item_id bigint not null primary key, sku varchar(20) not null)`);
    const schema = db.kind === 'postgres' ? 'public' : db.name;
    const args = [
      'init',
      '--url',
      url(),
      '--source',
      source,
      orders,
      'items',
      '--guard',
      orders,
      '--guard',
      `items=${schema}.${items}.item_id`,
    ];
    for (let i = 0; i < 2; i++) {
      const init = await hilo([...args, '--json']);
      expectSuccess(init);
      expect(JSON.parse(init.stdout)).toEqual([
        expect.objectContaining({ segment: orders, source, guards: [`${orders}.id`] }),
        expect.objectContaining({ segment: 'items', source, guards: [`${schema}.${items}.item_id`] }),
      ]);
    }
    await expect(run(`insert into ${orders} (reference) values ('keyless')`)).rejects.toThrow(
      new RegExp(`hilo: a row of segment '${orders}' arrived without a key`),
    );
    await expect(run(`insert into ${items} (sku) values ('keyless')`)).rejects.toThrow(
      /hilo: a row of segment 'items' arrived without a key/,
    );
    const [orderKey] = keysOf(await hilo(['next', '--unverified', '--url', url(), '--source', source, orders]));
    const [itemKey] = keysOf(await hilo(['next', '--unverified', '--url', url(), '--source', source, 'items']));
    await run(`insert into ${orders} (id, reference) values (${orderKey}, 'keyed')`);
    await run(`insert into ${items} (item_id, sku) values (${itemKey}, 'keyed')`);

    // the human output says what is guarded; --sql prints the same objects for a migration
    const human = await hilo([...args]);
    expectSuccess(human);
    expect(human.stdout).toContain(`rows of ${orders}.id without a key are rejected`);
    const sql = await hilo([...args, '--sql']);
    expectSuccess(sql);
    // a trigger's body holds `;`, so the script text wraps it in DELIMITER lines for the mysql/mariadb client
    expect(sql.stdout).toMatch(
      db.kind === 'postgres'
        ? /set default "public"\."hilo_missing_key"\('items'\);/
        : /\nDELIMITER \/\/\ncreate trigger `[^`]+`\.`guard_items_\w+_hilo_key`[^]*\nend \/\/\nDELIMITER ;\n$/,
    );
  });

  // issue 52 item 7: two inits racing with different block sizes. The loser used to print "ready … increment X" and
  // exit 0 while the sequence had the winner's increment; each now reads back what exists before it says ready.
  it(`two racing \`hilo init --block-size\`: only an init that asked for what exists says ready (${source})`, async () => {
    const rounds = source === 'sequence' ? 6 : 3;
    for (let round = 0; round < rounds; round++) {
      const segment = `race_${source}_${round}`;
      const sizes = [50, 70] as const;
      const runs = await Promise.all(
        sizes.map((size) =>
          hilo(['init', '--url', url(), '--source', source, '--block-size', String(size), '--json', segment]),
        ),
      );
      const status = await hilo(['status', '--url', url(), '--source', source, '--json']);
      expectSuccess(status);
      type Row = { segment: string; increment: string | null };
      const rows = (JSON.parse(status.stdout) as Row[]).filter((r) => r.segment === segment);
      expect(rows).toHaveLength(1);
      if (source === 'table') {
        // a hi table stores no block size: both made (or found) the row they asked for
        for (const run of runs) expectSuccess(run);
        continue;
      }
      const made = Number(rows[0]!.increment);
      expect(sizes).toContain(made);
      runs.forEach((run, i) => {
        if (run.code === 0) {
          // said ready: it asked for exactly what exists
          expect(sizes[i]).toBe(made);
          expect(JSON.parse(run.stdout)).toEqual([{ segment, source, blockSize: made }]);
        } else {
          // lost the race: exit 2, naming both sizes and the fix, and nothing on stdout
          expect(sizes[i]).not.toBe(made);
          expect(run.code).toBe(2);
          expect(run.stdout).toBe('');
          expect(run.stderr).toContain(`INCREMENT BY ${made}`);
          expect(run.stderr).toContain(`--block-size ${sizes[i]}`);
          expect(run.stderr).toContain(`hilo alter --block-size ${sizes[i]} ${segment}`);
        }
      });
      // the init that asked for what exists says ready
      expect(runs.filter((run, i) => run.code === 0 && sizes[i] === made)).toHaveLength(1);
    }
  }, 180_000);

  // issue 17: every replica runs `hilo init --guard` at start-up, so ten at once must all succeed (PostgreSQL's
  // catalog used to fail some with "tuple concurrently updated"); once per database is enough
  if (source === (db.kind === 'postgres' ? 'sequence' : 'table')) {
    it(`ten concurrent \`hilo init --guard\`, five rounds, all succeed and the guard then holds (${source})`, async () => {
      const run = execute();
      const table = `race_guard_${source}`;
      await run(`create table ${table} (id bigint not null primary key, note varchar(20) not null)`);
      for (let round = 0; round < 5; round++) {
        const runs = await Promise.all(
          Array.from({ length: 10 }, () => hilo(['init', '--url', url(), '--source', source, table, '--guard', table])),
        );
        for (const r of runs) expectSuccess(r);
      }
      await expect(run(`insert into ${table} (note) values ('keyless')`)).rejects.toThrow(
        new RegExp(`hilo: a row of segment '${table}' arrived without a key`),
      );
    }, 180_000);
  }

  it(`init --guard names a missing table or column in one line and exits 1 (${source})`, async () => {
    await execute()(`create table columnless_${source} (id bigint primary key)`);
    for (const [guard, message] of [
      [
        'no_such_table.id',
        /Cannot guard "no_such_table\.id" \(segment "missing"\): table .*no_such_table.* does not exist/,
      ],
      [`columnless_${source}.nope`, /Cannot guard "columnless_\w+\.nope".*has no column .nope./],
    ] as const) {
      const init = await hilo(['init', '--url', url(), '--source', source, 'missing', '--guard', guard]);
      expect(init.code).toBe(1);
      expect(init.stdout).toBe('');
      expect(init.stderr.trim().split('\n')).toHaveLength(1);
      expect(init.stderr).toMatch(message);
    }
  });

  it(`floor names a missing table or column in one line and exits 1 (${source})`, async () => {
    const segment = `missing_${source}`;
    const floor = await hilo(['floor', '--url', url(), '--source', source, segment, '--from', 'no_such_table']);
    expect(floor.code).toBe(1);
    expect(floor.stderr.trim().split('\n')).toHaveLength(1);
    expect(floor.stderr).toMatch(/no_such_table/);
  });
}
