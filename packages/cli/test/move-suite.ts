// `hilo move` (issue 52, DESIGN rule 13): the store records which segment keys each column, so a deploy that renamed
// a segment is refused until the column moves; `hilo move` moves it with the new segment above both stores, and the
// renamed deploy then stores keys without one twice. `hilo status` shows each segment's column. Run in-process
// through main(), on real databases.
import { randomName } from '@hilo/testing';
import { connect, type SqlClient } from 'hilo-core';
import { run } from './check-suite.js';

/** The suite for one database URL and source kind. */
export function moveSuite(url: () => string, source: 'sequence' | 'table'): void {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(url());
  });
  afterAll(async () => {
    await client.close();
  });

  /** `hilo next` for `segment` keying `table.id`, each key stored in the table (a key stored twice fails). */
  const store = async (segment: string, table: string, count: number) => {
    const args = ['next', '--url', url(), '--source', source, '--count', String(count)];
    const result = await run([...args, '--stored', `${segment}=${table}.id`, segment]);
    if (result.status !== 0) return { ...result, keys: [] as bigint[] };
    const keys = result.stdout.trim().split('\n');
    for (const key of keys) await client.query(`insert into ${table} (id) values (${key})`);
    return { ...result, keys: keys.map(BigInt) };
  };

  it(`refuses a renamed segment until \`hilo move\` moves the column above both stores (${source})`, async () => {
    const [a, b] = [randomName('a'), randomName('b')];
    const table = randomName('mv');
    await client.query(`create table ${table} (id bigint primary key)`);
    expect((await run(['init', '--url', url(), '--source', source, '--block-size', '10', a, b])).status).toBe(0);
    const before = await store(a, table, 35);
    expect(before.stderr).toBe('');
    expect(before.status).toBe(0);

    const status = JSON.parse((await run(['status', '--url', url(), '--source', source, '--json'])).stdout) as {
      segment: string;
      columns: string[];
    }[];
    const column = status.find((s) => s.segment === a)!.columns[0]!;
    expect(column).toMatch(new RegExp(`(^|\\.)${table}\\.id$`));
    const table_ = await run(['status', '--url', url(), '--source', source]);
    expect(table_.stdout).toMatch(/SEGMENT\s+SOURCE\s+OBJECT\s+COLUMN\s+VALUE/);
    expect(table_.stdout).toMatch(new RegExp(`${a}\\s+${source}\\s+\\S+\\s+${column.replaceAll('.', '\\.')}\\s`));

    // the renamed deploy: refused before a key, naming both segments, the column and the command that fixes it
    const renamed = await store(b, table, 100);
    expect(renamed.status).toBe(2); // a HiLoMismatchError: the command line names the wrong segment
    expect(renamed.stdout).toBe('');
    expect(renamed.stderr).toContain(`Column ${column} is keyed by segment "${a}"`);
    expect(renamed.stderr).toContain(`segment "${b}"`);
    expect(renamed.stderr).toContain(`hilo move --url URL ${column} --to ${b}`);

    const move = await run(['move', '--url', url(), '--source', source, `${table}.id`, '--to', b, '--json']);
    expect(move.stderr).toBe('');
    expect(move.status).toBe(0);
    const moved = JSON.parse(move.stdout) as {
      column: string;
      from: string;
      to: string;
      above: string;
      moved: boolean;
    };
    expect(moved).toMatchObject({ column, from: a, to: b, moved: true });
    expect(BigInt(moved.above)).toBeGreaterThanOrEqual(before.keys[before.keys.length - 1]!);

    const after = await store(b, table, 100);
    expect(after.stderr).toBe('');
    expect(after.keys).toHaveLength(100);
    expect(after.keys[0]!).toBeGreaterThan(BigInt(moved.above));
    const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${table}`);
    expect(Number(rows[0]!.n)).toBe(135);

    // the old segment is refused now; moving again changes nothing
    const old = await store(a, table, 1);
    expect(old.status).toBe(2);
    expect(old.stderr).toContain(`Column ${column} is keyed by segment "${b}"`);
    expect(old.stderr).toContain(`stop the processes still using "${a}"`);
    const again = await run(['move', '--url', url(), '--source', source, `${table}.id`, '--to', b]);
    expect(again.stdout).toBe(`column ${column}: already keyed by segment "${b}"; nothing to move\n`);
    const listed = JSON.parse((await run(['status', '--url', url(), '--source', source, '--json'])).stdout) as {
      segment: string;
      columns: string[];
    }[];
    expect(listed.find((s) => s.segment === b)?.columns).toEqual([column]);
    expect(listed.find((s) => s.segment === a)?.columns).toEqual([]);
  }, 60_000);

  it(`moves a column nothing recorded yet above its stored keys (${source})`, async () => {
    const b = randomName('b');
    const table = randomName('mv');
    await client.query(`create table ${table} (id bigint primary key)`);
    await client.query(`insert into ${table} (id) values (500)`);
    const move = await run(['move', '--url', url(), '--source', source, `${table}`, '--to', b]);
    expect(move.status).toBe(0);
    expect(move.stdout).toMatch(
      new RegExp(`moved from no segment to segment "${b}"; every future key of "${b}" is above 500`),
    );
    const after = await store(b, table, 5);
    expect(after.keys[0]!).toBeGreaterThan(500n);
  });

  // issue 54: an `integer` key column fills at 2147483647, which USED measured against bigint's maximum
  it(`status measures USED against the recorded column's type, from the catalog (${source})`, async () => {
    const [narrow, unrecorded] = [randomName('int'), randomName('big')];
    const table = randomName('intkeys');
    await client.query(`create table ${table} (id integer primary key)`);
    expect((await run(['init', '--url', url(), '--source', source, narrow, unrecorded])).status).toBe(0);
    const stored = await store(narrow, table, 3);
    expect(stored.stderr).toBe('');
    expect(stored.status).toBe(0);
    expect((await run(['next', '--url', url(), '--source', source, '--unverified', unrecorded])).status).toBe(0);
    type Row = { segment: string; maxKey: string };
    const read = async (extra: string[] = []) =>
      JSON.parse((await run(['status', '--url', url(), '--source', source, '--json', ...extra])).stdout) as Row[];
    const rows = await read();
    // SQLite's INTEGER holds 64 bits: its catalog has no narrower integer to report
    const intMax = url().startsWith('sqlite:') ? '9223372036854775807' : '2147483647';
    expect(rows.find((r) => r.segment === narrow)!.maxKey).toBe(intMax);
    expect(rows.find((r) => r.segment === unrecorded)!.maxKey).toBe('9223372036854775807');
    // --max-key still decides when given
    expect((await read(['--max-key', 'smallint'])).find((r) => r.segment === narrow)!.maxKey).toBe('32767');
    const text = await run(['status', '--url', url(), '--source', source]);
    expect(text.stdout).toMatch(/USED\s+MAX KEY/);
    expect(text.stdout).toMatch(new RegExp(`${narrow}\\s.*\\s${intMax}\\n`));
  });

  it(`refuses a bad column and a bad segment as bad input (${source})`, async () => {
    expect((await run(['move', '--url', url(), 'a.b.c.d', '--to', 'x'])).status).toBe(2);
    expect((await run(['move', '--url', url(), 'orders.id', '--to', 'bad segment'])).status).toBe(2);
    expect((await run(['move', '--url', url(), 'orders.id'])).status).toBe(2);
  });
}
