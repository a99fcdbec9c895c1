import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { main } from 'hilo-cli';
import { ensureBuilt, removeBuilt, expectSuccess, hilo, isIncreasing, keysOf, type CliRun } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);
afterAll(removeBuilt);

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const PG = 'postgres://postgres@127.0.0.1:1/nothing_listens_here';

/**
 * Most runs below need no database, or one that is not there, and do not depend on each other: one after
 * another they took most of this file's time, each a Node start-up. `early` starts them together in
 * `beforeAll`, four processes at a time, and each test awaits its own run (and checks it as before).
 */
const started = new Map<string, Promise<CliRun>>();
const waiting: (() => void)[] = [];
let free = 4;
function early(args: readonly string[], options?: { timeoutMs?: number }): Promise<CliRun> {
  const key = JSON.stringify(args);
  let run = started.get(key);
  if (run === undefined) {
    run = (async () => {
      while (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
      free--;
      try {
        return await hilo(args, options);
      } finally {
        free++;
        waiting.shift()?.();
      }
    })();
    // awaited by its test; until then a spawn failure must not count as unhandled
    run.catch(() => undefined);
    started.set(key, run);
  }
  return run;
}

/** Asserts the run was refused as bad input: status 2 and one line on stderr naming the problem. */
function expectUsageError(run: { code: number | null; stdout: string; stderr: string }, mentions: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(mentions);
}

const badInput: [string, string[], RegExp][] = [
  [
    'a block size of 0',
    ['next', '--unverified', '--url', PG, '--block-size', '0', 'orders'],
    /--block-size.*integer from 1/,
  ],
  [
    'a negative block size',
    ['next', '--unverified', '--url', PG, '--block-size', '-5', 'orders'],
    /--block-size.*integer from 1.*"-5"/,
  ],
  ['a negative block size in init', ['init', '--url', PG, '--block-size=-1', 'orders'], /--block-size.*"-1"/],
  ['a fractional block size', ['init', '--url', PG, '--block-size', '2.5', 'orders'], /--block-size.*"2\.5"/],
  [
    'a non-numeric count',
    ['next', '--unverified', '--url', PG, '--count', 'lots', 'orders'],
    /--count.*integer.*"lots"/,
  ],
  ['a count of 0', ['next', '--unverified', '--url', PG, '--count', '0', 'orders'], /--count/],
  [
    'an unknown URL scheme',
    ['next', '--unverified', '--url', 'oracle://db/x', 'orders'],
    /postgres:\/\/.*mysql:\/\/.*"oracle:\/\/db\/x"/,
  ],
  ['a URL without scheme', ['status', '--url', 'localhost:5432/shop'], /Expected a URL starting with/],
  [
    'an unknown source',
    ['next', '--unverified', '--url', PG, '--source', 'file', 'orders'],
    /"sequence" or "table".*"file"/,
  ],
  ['a missing segment', ['next', '--unverified', '--url', PG], /missing required argument 'segment'/],
  ['no segment for init', ['init', '--url', PG], /missing required argument 'segment'/],
  ['a missing --url', ['next', 'orders'], /--url/],
  ['a missing --from', ['floor', '--url', PG, 'orders'], /--from/],
  ['a hostile --from', ['floor', '--url', PG, 'orders', '--from', 'orders; drop table x'], /TABLE\.COLUMN/],
  ['a hostile --table', ['init', '--url', PG, '--source', 'table', '--table', 'x"y', 'orders'], /table name/],
  [
    'an unknown option',
    ['next', '--unverified', '--url', PG, '--blocksize', '5', 'orders'],
    /unknown option '--blocksize'/,
  ],
  [
    'a hostile --guard',
    ['init', '--url', PG, 'orders', '--guard', 'orders; drop table x'],
    /--guard.*TABLE\.COLUMN.*"orders; drop table x"/,
  ],
  [
    'a --guard with four parts',
    ['init', '--url', PG, 'orders', '--guard', 'a.b.c.d'],
    /--guard.*SCHEMA\.TABLE\.COLUMN/,
  ],
  ['a --guard with an empty segment', ['init', '--url', PG, 'orders', '--guard', '=orders.id'], /--guard.*SEGMENT=/],
  ['a --guard with a hostile segment', ['init', '--url', PG, 'orders', '--guard', "o'x=orders.id"], /segment name/],
  [
    'a --guard whose segment is not created',
    ['init', '--url', PG, 'orders', '--guard', 'items=order_items.id'],
    /segment "items" is not among the segments to create \(orders\)/,
  ],
  [
    'a --guard of no named segment among several',
    ['init', '--url', PG, 'orders', 'customers', '--guard', 'order_items.id'],
    /say which segment.*--guard orders=order_items\.id/,
  ],
  ['an unknown subcommand', ['reserve', '--url', PG], /unknown command 'reserve'/],
  [
    'next with neither --stored nor --unverified (issue 46)',
    ['next', '--url', PG, 'orders'],
    /keys are checked against the rows.*--stored orders=TABLE\.COLUMN.*--unverified/,
  ],
  [
    'next with both --stored and --unverified',
    ['next', '--url', PG, '--stored', 'orders.id', '--unverified', 'orders'],
    /--unverified.*cannot be used with.*--stored/,
  ],
  [
    'next --stored naming another segment',
    ['next', '--url', PG, '--stored', 'items=order_items.id', 'orders'],
    /--stored items=order_items\.id names segment "items".*drawn from "orders"/,
  ],
];
const badSegments: [string, string][] = [
  ['SQL in a segment name', 'x"; drop table t; --'],
  ['a quote', "o'rders"],
  ['a newline', 'orders\nother'],
  ['an empty name', ''],
  ['spaces', 'my orders'],
  ['a name longer than 128 characters', 'o'.repeat(129)],
];
const nextWithSegment = (source: string, segment: string) => [
  'next',
  '--unverified',
  '--url',
  PG,
  '--source',
  source,
  '--',
  segment,
];
const subcommands = ['init', 'next', 'status', 'floor', 'check', 'alter'];
const unreachable: [string, string[]][] = [
  ['postgres, sequence', ['next', '--unverified', '--url', PG, 'orders']],
  ['postgres, table', ['next', '--unverified', '--url', PG, '--source', 'table', '--count', '5', 'orders']],
  ['postgres, status', ['status', '--url', PG]],
  ['postgres, init', ['init', '--url', PG, 'orders']],
  ['postgres, alter', ['alter', '--url', PG, '--block-size', '40', 'orders']],
  ['mariadb, table', ['next', '--unverified', '--url', 'mariadb://root@127.0.0.1:1/nothing', 'orders']],
  ['mysql, floor', ['floor', '--url', 'mysql://root@127.0.0.1:1/nothing', 'orders', '--from', 'orders']],
];
const unreachableTimeout = { timeoutMs: 20_000 };

beforeAll(() => {
  for (const [, args] of unreachable) void early(args, unreachableTimeout);
  for (const [, args] of badInput) void early(args);
  for (const [, segment] of badSegments)
    for (const source of ['sequence', 'table']) void early(nextWithSegment(source, segment));
  void early(['next', '--unverified', '--url', PG, '--source', 'sequence', 'orders.v2']);
  for (const command of subcommands) void early([command, '--help']);
  for (const flag of ['--version', '-V']) void early([flag]);
});

describe('hilo: bad input exits 2 with one line saying what to fix', () => {
  it.each(badInput)('%s', async (_name, args, mentions) => {
    expectUsageError(await early(args), mentions);
  });

  it.each(badSegments)('rejects %s in a segment name before connecting', async (_name, segment) => {
    for (const source of ['sequence', 'table']) {
      expectUsageError(await early(nextWithSegment(source, segment)), /segment name/);
    }
  });

  it('rejects a segment that cannot name a sequence, even with the database down', async () => {
    // "orders.v2" is a fine table row but not a SQL identifier: core says so before connecting
    expectUsageError(
      await early(['next', '--unverified', '--url', PG, '--source', 'sequence', 'orders.v2']),
      /sequence.*name/,
    );
  });

  it('prints help for each subcommand on stdout and exits 0', async () => {
    for (const command of subcommands) {
      const run = await early([command, '--help']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: hilo ${command}`);
      expect(run.stdout).toContain('--source <kind>');
    }
  });
});

describe('hilo --version', () => {
  it("prints hilo-cli's package.json version on stdout and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await early([flag]);
      expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});

describe('hilo: an unreachable database exits 1 on its own, with one line', () => {
  it.each(unreachable)('%s', async (_name, args) => {
    const run = await early(args, unreachableTimeout);
    // exit code 1 is the CLI ending by itself; a run that hung would be killed at unreachableTimeout (the hang
    // detector) without it. How long it took is not asserted (issue #52)
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/could not be reached|ECONNREFUSED/);
  });
});

describe('hilo on SQLite (table source)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('init is idempotent, next prints increasing keys, status lists the segment', async () => {
    const url = `sqlite:${join(dir, 'keys.db')}`;
    for (let i = 0; i < 2; i++) expectSuccess(await hilo(['init', '--url', url, 'orders', 'customers']));
    const first = keysOf(await hilo(['next', '--unverified', '--url', url, '--count', '250', 'orders']));
    const second = keysOf(await hilo(['next', '--unverified', '--url', url, '--count', '3', 'orders']));
    expect(first).toHaveLength(250);
    expect(isIncreasing([...first, ...second])).toBe(true);
    const status = await hilo(['status', '--url', url, '--json']);
    expectSuccess(status);
    const rows = JSON.parse(status.stdout) as { segment: string; source: string; value: string }[];
    expect(rows.map((r) => r.segment).sort()).toEqual(['customers', 'orders']);
    // unused keys went back to the row, so the next key follows the last printed one
    expect(rows.find((r) => r.segment === 'orders')?.value).toBe(String(second.at(-1)! + 1n));
  });

  it('refuses a segment nobody created (a typo must not start a key space at 1)', async () => {
    const url = `sqlite:${join(dir, 'typo.db')}`;
    expectSuccess(await hilo(['init', '--url', url, 'orders']));
    const run = await hilo(['next', '--unverified', '--url', url, 'ordres']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/"ordres".*hilo init ordres/);
    // the command line prints the hint worded for it: `create: true` is a library option, not a flag
    expect(run.stderr).not.toMatch(/create: true/);
  });

  it("guards a SQLite key column with a trigger: a row without a key is refused, one with hilo's key stored", async () => {
    const file = join(dir, 'guard.db');
    const url = `sqlite:${file}`;
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(file);
    try {
      db.exec('create table orders (id integer primary key, total integer not null)');
      const init = await hilo(['init', '--url', url, 'orders', '--guard', 'orders.id', '--json']);
      expectSuccess(init);
      expect(JSON.parse(init.stdout)).toEqual([{ segment: 'orders', source: 'table', guards: ['orders.id'] }]);
      expect(() => db.exec('insert into orders (total) values (1)')).toThrow(
        /hilo: a row of segment 'orders' arrived without a key/,
      );
      const next = await hilo(['next', '--unverified', '--url', url, 'orders']);
      expectSuccess(next);
      const [key] = keysOf(next);
      db.prepare('insert into orders (id, total) values (?, 2)').run(key);
      expect(db.prepare('select id, total from orders').all()).toEqual([{ id: Number(key), total: 2 }]);
      const sql = await hilo(['init', '--url', url, 'orders', '--guard', 'orders.id', '--sql']);
      expectSuccess(sql);
      expect(sql.stdout).toMatch(
        new RegExp(
          String.raw`create trigger "orders_hilo_key" before insert on "orders" when new\."id" is null or new\."id" = -1 ` +
            String.raw`begin select raise\(abort, .*\); end;\n`,
        ),
      );
    } finally {
      db.close();
    }
  });

  it('runs in-process through main(argv, io)', async () => {
    const url = `sqlite:${join(dir, 'in-process.db')}`;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    expect(await main(['init', '--url', url, 'orders'], { stdout, stderr })).toBe(0);
    chunks.length = 0;
    expect(await main(['next', '--unverified', '--url', url, '--count', '4', 'orders'], { stdout, stderr })).toBe(0);
    expect(Buffer.concat(chunks).toString()).toBe('1\n2\n3\n4\n');
    expect(await main(['next', '--unverified', '--url', url, '--count', 'x', 'orders'], { stdout, stderr })).toBe(2);
  });
});
