import pg from 'pg';
import { describePostgres } from '@hilo/testing';
import { createHiLoGenerator } from '../src/generator.js';
import { connect } from '../src/sql/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import type { InteropPreset } from '../src/presets/index.js';
import { efCorePreset, hibernateSequencePreset, hibernateTablePreset, martenPreset, nhibernatePreset } from '../src/presets/index.js';

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

/** A value source of Hibernate's: `nextval` of a sequence, or the table generator's locked compare-and-set. */
type Fetch = (connection: pg.Client) => Promise<bigint>;

const hibernateSequenceFetch =
  (sequence: string): Fetch =>
  async (connection) => {
    const { rows } = await connection.query<{ v: string }>(`select nextval('${sequence}')::text as v`);
    return BigInt(rows[0]!.v);
  };

/** Hibernate's TableGenerator in its own transaction: select … for update, then compare-and-set until one row changes. */
const hibernateTableFetch =
  (segment: string, increment: bigint, initialValue: bigint): Fetch =>
  async (connection) => {
    await connection.query('begin');
    try {
      let value: bigint;
      for (;;) {
        const { rows } = await connection.query<{ v: string }>('select next_val::text as v from hibernate_sequences where sequence_name = $1 for update', [segment]);
        if (rows[0] === undefined) {
          await connection.query('insert into hibernate_sequences (sequence_name, next_val) values ($1, $2)', [segment, String(initialValue)]);
          value = initialValue;
        } else value = BigInt(rows[0].v);
        const updated = await connection.query('update hibernate_sequences set next_val = $1 where next_val = $2 and sequence_name = $3', [
          String(value + increment),
          String(value),
          segment,
        ]);
        if (updated.rowCount === 1) break;
      }
      await connection.query('commit');
      return value;
    } catch (error) {
      await connection.query('rollback');
      throw error;
    }
  };

/** Hibernate's PooledOptimizer: the value is the block's last key; the initial value starts a block at 1. */
function pooledOptimizer(fetch: Fetch, increment: bigint, initialValue = 1n): OtherSystem {
  let hi: bigint | undefined;
  let value = 0n;
  return async (connection) => {
    if (hi === undefined) {
      value = await fetch(connection);
      if (value === initialValue) hi = await fetch(connection);
      else {
        hi = value;
        value = hi - increment + 1n;
      }
    } else if (value > hi) {
      hi = await fetch(connection);
      value = hi - increment + 1n;
    }
    return value++;
  };
}

/** Hibernate's PooledLoOptimizer: the value is the block's first key. */
function pooledLoOptimizer(fetch: Fetch, increment: bigint): OtherSystem {
  let value = 0n;
  let upper = 0n; // exclusive
  return async (connection) => {
    if (value >= upper) {
      value = await fetch(connection);
      upper = value + increment;
    }
    return value++;
  };
}

/** Hibernate's LegacyHiLoAlgorithmOptimizer: keys hi × (maxLo + 1) + lo, lo 0…maxLo, lo from 1 when hi = 0. */
function legacyHiLoOptimizer(fetch: Fetch, maxLo: bigint): OtherSystem {
  let lo = maxLo + 1n;
  let hi = 0n;
  return async (connection) => {
    if (lo > maxLo) {
      const value = await fetch(connection);
      lo = value === 0n ? 1n : 0n;
      hi = value * (maxLo + 1n);
    }
    return hi + lo++;
  };
}

async function sql(url: string, statement: string): Promise<void> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(statement);
  } finally {
    await setup.end();
  }
}

describePostgres('presets: Hibernate sequence generator', (db) => {
  it('pooled: Hibernate nodes and hilo share orders_seq (increment 50) without a duplicate', async () => {
    await sql(db.url, 'create sequence orders_seq start with 1 increment by 50');
    await runBothSides(db.url, () => pooledOptimizer(hibernateSequenceFetch('orders_seq'), 50n), (client) => hibernateSequencePreset(client));
  });

  it('pooled-lo: Hibernate nodes and hilo share items_seq (increment 20) without a duplicate', async () => {
    await sql(db.url, 'create sequence items_seq start with 1 increment by 20');
    await runBothSides(
      db.url,
      () => pooledLoOptimizer(hibernateSequenceFetch('items_seq'), 20n),
      (client) => hibernateSequencePreset(client, { optimizer: 'pooled-lo', incrementSize: 20 }),
      'items',
    );
  });

  it('legacy-hilo: Hibernate nodes and hilo share lines_seq (maxLo 30) without a duplicate', async () => {
    await sql(db.url, 'create sequence lines_seq start with 1 increment by 1');
    await runBothSides(
      db.url,
      () => legacyHiLoOptimizer(hibernateSequenceFetch('lines_seq'), 30n),
      (client) => hibernateSequencePreset(client, { optimizer: 'legacy-hilo', incrementSize: 30 }),
      'lines',
    );
  });
});

describePostgres('presets: Hibernate table generator (hibernate_sequences)', (db) => {
  it('pooled: Hibernate nodes (select for update + compare-and-set) and hilo share one row without a duplicate', async () => {
    await sql(db.url, 'create table hibernate_sequences (sequence_name varchar(255) not null primary key, next_val bigint)');
    await runBothSides(db.url, () => pooledOptimizer(hibernateTableFetch('orders', 50n, 1n), 50n), (client) => hibernateTablePreset(client));
  });

  it('pooled-lo, table created by hilo: both sides share the row without a duplicate', async () => {
    await runBothSides(
      db.url,
      () => pooledLoOptimizer(hibernateTableFetch('parcels', 25n, 1n), 25n),
      (client) => hibernateTablePreset(client, { optimizer: 'pooled-lo', incrementSize: 25 }),
      'parcels',
    );
  });
});

/** Marten's schema: `mt_hilo` and the function its HiloSequence calls to take the next hi (-1 when it lost a race). */
const MARTEN_SCHEMA = `
create table mt_hilo (entity_name varchar not null primary key, hi_value bigint default 0);
create function mt_get_next_hi(entity varchar) returns bigint language plpgsql as $$
declare
  current_value bigint;
  next_value bigint;
begin
  select hi_value into current_value from mt_hilo where entity_name = entity;
  if current_value is null then
    insert into mt_hilo (entity_name, hi_value) values (entity, 0);
    next_value := 0;
  else
    next_value := current_value + 1;
    update mt_hilo set hi_value = next_value where entity_name = entity and hi_value = current_value;
    if not found then
      next_value := -1;
    end if;
  end if;
  return next_value;
end
$$;`;

/** Marten's HiloSequence: takes a hi with mt_get_next_hi (up to 30 tries), then keys hi × maxLo + 1 … maxLo. */
function martenNode(entity: string, maxLo: bigint): OtherSystem {
  let hi = -1n;
  let lo = maxLo + 1n;
  return async (connection) => {
    if (hi < 0n || lo > maxLo) {
      hi = -1n;
      for (let attempt = 0; attempt < 30 && hi < 0n; attempt++) {
        const { rows } = await connection.query<{ v: string }>('select mt_get_next_hi($1)::text as v', [entity]);
        hi = BigInt(rows[0]!.v);
      }
      if (hi < 0n) throw new Error('Marten simulation: no hi after 30 attempts');
      lo = 1n;
    }
    return hi * maxLo + lo++;
  };
}

describePostgres('presets: Marten mt_hilo', (db) => {
  it('Marten nodes (mt_get_next_hi) and hilo share one entity row without a duplicate', async () => {
    await sql(db.url, MARTEN_SCHEMA);
    await runBothSides(db.url, () => martenNode('orders', 40n), (client) => martenPreset(client, { maxLo: 40, attempts: 1000 }));
  });

  it('hilo creates the row (hi 0) and Marten continues from it', async () => {
    await runBothSides(db.url, () => martenNode('users', 25n), (client) => martenPreset(client, { maxLo: 25, attempts: 1000 }), 'users');
  });
});

/** NHibernate's TableHiLoGenerator: select … for update, update … where next_hi = ? until one row; keys hi × (maxLo + 1) + lo. */
function nhibernateNode(maxLo: bigint, table = 'hibernate_unique_key', where?: { column: string; value: string }): OtherSystem {
  let lo = maxLo + 1n;
  let hi = 0n;
  const condition = where === undefined ? '' : ` and ${where.column} = '${where.value}'`;
  const selectWhere = where === undefined ? '' : ` where ${where.column} = '${where.value}'`;
  return async (connection) => {
    if (lo > maxLo) {
      await connection.query('begin');
      let value: bigint;
      try {
        for (;;) {
          const { rows } = await connection.query<{ v: string }>(`select next_hi::text as v from ${table}${selectWhere} for update`);
          value = BigInt(rows[0]!.v);
          const updated = await connection.query(`update ${table} set next_hi = $1 where next_hi = $2${condition}`, [String(value + 1n), String(value)]);
          if (updated.rowCount === 1) break;
        }
        await connection.query('commit');
      } catch (error) {
        await connection.query('rollback');
        throw error;
      }
      lo = value === 0n ? 1n : 0n;
      hi = value * (maxLo + 1n);
    }
    return hi + lo++;
  };
}

describePostgres('presets: NHibernate hibernate_unique_key', (db) => {
  it('NHibernate nodes and hilo share the single next_hi row without a duplicate', async () => {
    await sql(db.url, 'create table hibernate_unique_key (next_hi bigint); insert into hibernate_unique_key values (1)');
    await runBothSides(db.url, () => nhibernateNode(49n), (client) => nhibernatePreset(client, { maxLo: 49 }));
  });

  it('a `where` row starting at hi 0 (key 0 skipped) is shared without a duplicate', async () => {
    await sql(db.url, "create table hilo_keys (next_hi bigint, entity varchar(255)); insert into hilo_keys values (5, 'other'), (0, 'orders')");
    await runBothSides(
      db.url,
      () => nhibernateNode(29n, 'hilo_keys', { column: 'entity', value: 'orders' }),
      (client) => nhibernatePreset(client, { maxLo: 29, table: 'hilo_keys', where: (segment) => ({ column: 'entity', value: segment }) }),
    );
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    const { rows } = await check.query<{ v: string }>("select next_hi::text as v from hilo_keys where entity = 'other'");
    await check.end();
    expect(rows[0]!.v).toBe('5'); // the other row was never touched
  });
});
