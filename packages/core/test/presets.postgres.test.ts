import pg from 'pg';
import { describePostgres } from '@hilo/testing';
import { createHiLoGenerator } from '../src/generator.js';
import { connect } from '../src/sql/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import type { InteropPreset } from '../src/presets/index.js';
import { efCorePreset } from '../src/presets/index.js';

/** A simulated client of the other system: one connection of its own, handing out keys like that system does. */
type OtherSystem = (connection: pg.Client) => Promise<bigint>;

const OTHER_NODES = 3;
const KEYS_PER_OTHER_NODE = 1200;
const HILO_CALLERS = 4;
const KEYS_PER_HILO_CALLER = 900;

/**
 * Runs `OTHER_NODES` simulated nodes of the other system (each its own connection) concurrently with a hilo
 * generator built from `preset` (HILO_CALLERS concurrent callers), and asserts every key is distinct.
 */
async function runBothSides(url: string, makeOther: () => OtherSystem, preset: (client: SqlClient) => InteropPreset, segment = 'orders') {
  const client = await connect(url);
  const connections = await Promise.all(
    Array.from({ length: OTHER_NODES }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    const hilo = createHiLoGenerator({ ...preset(client), adaptive: false, keyType: 'bigint' });
    // hilo takes its first block before the other side starts (see README-interop: Hibernate's initial-value rule)
    const first = await hilo.next(segment);
    const otherSide = connections.map(async (connection) => {
      const next = makeOther();
      const keys: bigint[] = [];
      for (let i = 0; i < KEYS_PER_OTHER_NODE; i++) keys.push(await next(connection));
      return keys;
    });
    const hiloSide = Array.from({ length: HILO_CALLERS }, async () => {
      const keys: bigint[] = [];
      for (let i = 0; i < KEYS_PER_HILO_CALLER; i++) keys.push(await hilo.next(segment));
      return keys;
    });
    const [other, mine] = await Promise.all([Promise.all(otherSide), Promise.all(hiloSide)]);
    await hilo.close();
    const all = [first, ...mine.flat(), ...other.flat()];
    expect(all.length).toBe(1 + HILO_CALLERS * KEYS_PER_HILO_CALLER + OTHER_NODES * KEYS_PER_OTHER_NODE);
    const seen = new Set<bigint>();
    const duplicates = all.filter((key) => (seen.has(key) ? true : (seen.add(key), false)));
    expect(duplicates.slice(0, 5)).toEqual([]);
    expect(all.every((key) => key > 0n)).toBe(true);
    return { mine: [first, ...mine.flat()], other: other.flat() };
  } finally {
    await Promise.all(connections.map((c) => c.end()));
    await client.close();
  }
}

/** EF Core's HiLoValueGenerator (Npgsql): `nextval` gives `v`, keys `v … v + increment - 1`. */
function efCoreNode(sequence: string, increment: bigint): OtherSystem {
  let next = 0n;
  let end = 0n; // exclusive
  return async (connection) => {
    if (next >= end) {
      const { rows } = await connection.query<{ v: string }>(`select nextval('"${sequence}"')::text as v`);
      next = BigInt(rows[0]!.v);
      end = next + increment;
    }
    return next++;
  };
}

describePostgres('presets: EF Core (Npgsql) hi/lo sequence', (db) => {
  it('EF Core clients and hilo draw distinct keys from EntityFrameworkHiLoSequence concurrently', async () => {
    // the sequence as EF Core's migration creates it
    const setup = new pg.Client({ connectionString: db.url });
    await setup.connect();
    await setup.query('create sequence "EntityFrameworkHiLoSequence" start with 1 increment by 10 no minvalue no maxvalue no cycle');
    await setup.end();
    const { mine, other } = await runBothSides(db.url, () => efCoreNode('EntityFrameworkHiLoSequence', 10n), (client) => efCorePreset(client));
    // both sides used the same sequence: keys interleave in one range
    expect(mine.some((key) => key > other[0]!)).toBe(true);
  });

  it('refuses a sequence whose INCREMENT BY differs from the preset (efcore.pg #843)', async () => {
    const client = await connect(db.url);
    try {
      await client.query('create sequence "OtherHiLo" start with 1 increment by 10');
      const hilo = createHiLoGenerator({ ...efCorePreset(client, { sequence: 'OtherHiLo', incrementBy: 20 }), adaptive: false });
      await expect(hilo.next('orders')).rejects.toMatchObject({ code: expect.stringMatching(/MISMATCH/i) });
      await hilo.close();
    } finally {
      await client.close();
    }
  });
});
