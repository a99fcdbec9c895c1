// `hilo check` and `hilo status --stored` (issue 39): after a store fell behind the rows, both say so with the fix
// and exit 1; a store ahead of the rows is ok (exit 0). Run in-process through main(), on real databases.
import { PassThrough } from 'node:stream';
import { randomName } from '@hilo/testing';
import { connect, createHiLo, HiLoStoreBehindError, type SqlClient } from 'hilo-core';
import { main } from 'hilo-cli';

/** Runs `hilo ARGS` in-process; resolves with its exit status and output. */
export async function run(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const status = await main(args, { stdout, stderr });
  return { status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

/** The suite for one database URL and source kind. */
export function checkSuite(url: () => string, source: 'sequence' | 'table'): void {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(url());
  });
  afterAll(async () => {
    await client.close();
  });

  it(`check and status --stored: ok while the store is ahead, BEHIND with the fix after it was set back (${source})`, async () => {
    const segment = randomName('c');
    const table = `${segment}_rows`;
    await client.query(`create table ${table} (id bigint primary key)`);
    const hilo = createHiLo({
      client,
      source,
      blockSize: 10,
      keyType: 'bigint',
      storedKeys: [{ segment, table, column: 'id' }],
    });
    for (let i = 0; i < 25; i++) await client.query(`insert into ${table} (id) values (${await hilo.next(segment)})`);
    await hilo.close();

    const ok = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
    expect(ok).toMatchObject({ status: 0, stderr: '' });
    expect(ok.stdout).toBe(`segment "${segment}": ok; the next block is above every key in ${table}.id\n`);
    const fine = await run(['status', '--url', url(), '--source', source, '--stored', `${segment}=${table}.id`]);
    expect(fine.status).toBe(0);
    expect(fine.stdout).toMatch(new RegExp(`${segment}\\s.*\\sok\\n`));

    // the store falls behind: rows copied in from another server, without the store
    const values = Array.from({ length: 100 }, (_, i) => `(${500 + i})`).join(', ');
    await client.query(`insert into ${table} (id) values ${values}`);

    const checked = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
    expect(checked.status).toBe(1);
    expect(checked.stdout).toContain(`segment "${segment}": BEHIND;`);
    expect(checked.stdout).toContain(`already holds key 599`);
    expect(checked.stdout).toContain(`hilo floor --url URL --source ${source} ${segment} --from ${table}.id`);
    expect(checked.stderr).toMatch(/hilo check: 1 of 1 segment is behind the keys stored in their tables/);
    const json = await run(['check', '--url', url(), '--source', source, '--json', `${segment}=${table}.id`]);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ segment, status: 'behind' })]);

    const status = await run(['status', '--url', url(), '--source', source, '--stored', `${segment}=${table}.id`]);
    expect(status.status).toBe(1);
    expect(status.stdout).toMatch(new RegExp(`${segment}\\s.*\\sBEHIND\\n`));
    expect(status.stderr).toContain(`segment "${segment}" is behind its stored keys: ${table}.id holds 599`);

    // the fix the check printed works, and the check says so
    const floor = await run(['floor', '--url', url(), '--source', source, segment, '--from', `${table}.id`]);
    expect(floor.status).toBe(0);
    const after = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
    expect(after.status).toBe(0);
  });

  /** Everything the store holds for `segment`, as text: the sequence's own row, or the hi table's row. */
  async function storeState(segment: string): Promise<string> {
    const sql =
      source === 'table'
        ? `select * from hilo_segments where segment = '${segment}'`
        : client.dialect === 'postgres'
          ? `select last_value::text as l, log_cnt::text as c, is_called as i from ${segment}_hilo_seq`
          : `select * from ${segment}_hilo_seq`;
    const { rows } = await client.query(sql);
    return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  }

  it(`check only reads: the store is byte-identical before and after, ok and behind (${source}, issue 46)`, async () => {
    const segment = randomName('r');
    const table = `${segment}_rows`;
    await client.query(`create table ${table} (id bigint primary key)`);
    // the app's block size (7) is not the CLI's default (100): check must not reserve a block of either
    const hilo = createHiLo({
      client,
      source,
      blockSize: 7,
      keyType: 'bigint',
      storedKeys: [{ segment, table, column: 'id' }],
    });
    for (let i = 0; i < 5; i++) await client.query(`insert into ${table} (id) values (${await hilo.next(segment)})`);
    await hilo.close();

    const before = await storeState(segment);
    for (let i = 0; i < 3; i++) {
      const ok = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
      expect(ok).toMatchObject({ status: 0, stderr: '' });
    }
    expect(await storeState(segment)).toBe(before);

    // behind: a row above the store's next block
    await client.query(`insert into ${table} (id) values (1000)`);
    const behind = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
    expect(behind.status).toBe(1);
    expect(behind.stdout).toContain('already holds key 1000');
    expect(behind.stdout).toContain(`hilo floor --url URL --source ${source} ${segment} --from ${table}.id`);
    expect(await storeState(segment)).toBe(before);

    // its advice stays right: after the check the store is still behind, and the app still refuses at start
    const again = await run(['check', '--url', url(), '--source', source, `${segment}=${table}.id`]);
    expect(again.status).toBe(1);
    const app = createHiLo({
      client,
      source,
      blockSize: 7,
      keyType: 'bigint',
      storedKeys: [{ segment, table, column: 'id' }],
    });
    await expect(app.next(segment)).rejects.toThrow(HiLoStoreBehindError);
    await app.close();
  });

  it(`next --stored refuses a store behind its rows, printing none of their keys; floor fixes it (${source}, issue 46)`, async () => {
    const segment = randomName('n');
    const table = `${segment}_rows`;
    await client.query(`create table ${table} (id bigint primary key)`);
    const hilo = createHiLo({
      client,
      source,
      blockSize: 10,
      keyType: 'bigint',
      storedKeys: [{ segment, table, column: 'id' }],
    });
    for (let i = 0; i < 5; i++) await client.query(`insert into ${table} (id) values (${await hilo.next(segment)})`);
    await hilo.close();
    const stored = ['--stored', `${segment}=${table}.id`];

    const fine = await run(['next', '--url', url(), '--source', source, ...stored, '--count', '3', segment]);
    expect(fine).toMatchObject({ status: 0, stderr: '' });
    const printed = fine.stdout.trimEnd().split('\n').map(BigInt);
    expect(printed).toHaveLength(3);
    for (const key of printed) expect(key).toBeGreaterThan(5n);

    // the store falls behind: 30 rows copied in above it, from another server, without the store
    const values = Array.from({ length: 30 }, (_, i) => `(${100 + i})`).join(', ');
    await client.query(`insert into ${table} (id) values ${values}`);
    const behind = await run(['next', '--url', url(), '--source', source, ...stored, '--count', '300', segment]);
    expect(behind.status).toBe(1);
    expect(behind.stdout).toBe('');
    expect(behind.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(behind.stderr).toMatch(/^hilo next: The hi store of segment .* is behind its stored keys/);
    expect(behind.stderr).toContain(`already holds key 129`);
    expect(behind.stderr).toContain(`hilo floor --url <URL> --source ${source} ${segment} --from ${table}.id`);

    const floor = await run(['floor', '--url', url(), '--source', source, segment, '--from', `${table}.id`]);
    expect(floor.status).toBe(0);
    const after = await run(['next', '--url', url(), '--source', source, ...stored, '--count', '3', segment]);
    expect(after.status).toBe(0);
    for (const key of after.stdout.trimEnd().split('\n').map(BigInt)) expect(key).toBeGreaterThan(129n);
  });

  it(`a --stored or check column whose table does not exist is refused (exit 2), never counted as empty (${source})`, async () => {
    const segment = randomName('t');
    const hilo = createHiLo({ client, source, blockSize: 10, keyType: 'bigint' });
    await hilo.next(segment);
    await hilo.close();
    const missing = `${segment}_typo`;
    const next = await run([
      'next',
      '--url',
      url(),
      '--source',
      source,
      '--stored',
      `${segment}=${missing}.id`,
      segment,
    ]);
    expect(next).toMatchObject({ status: 2, stdout: '' });
    expect(next.stderr).toMatch(
      new RegExp(`^hilo next: .*table ${missing} does not exist, so nothing could be checked`),
    );
    const check = await run(['check', '--url', url(), '--source', source, `${segment}=${missing}.id`]);
    expect(check).toMatchObject({ status: 2, stdout: '' });
    expect(check.stderr).toContain(`table ${missing} does not exist`);
  });
}
