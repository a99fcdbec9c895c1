/**
 * The interop preset tests, shared by presets.postgres.test.ts and presets.mysql.test.ts: simulated nodes of
 * the other system (presets-clients.ts) and a hilo generator built from the preset draw keys concurrently
 * from one database, and every key must be distinct; exact-key tests pin each formula.
 */
import { describeDatabase } from '@hilo/testing';
import { HiLoConfigurationError } from '../src/errors.js';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import type { InteropPreset } from '../src/presets/shared.js';
import { efCorePreset } from '../src/presets/efcore.js';
import { hibernateSequencePreset, hibernateTablePreset } from '../src/presets/hibernate.js';
import { martenPreset } from '../src/presets/marten.js';
import { nhibernatePreset } from '../src/presets/nhibernate.js';
import {
  efCoreNode,
  hibernateSequenceFetch,
  hibernateTableFetch,
  hiloOptimizer,
  legacyHiLoOptimizer,
  MARTEN_SCHEMA,
  martenNode,
  nhibernateNode,
  openConnection,
  pooledLoOptimizer,
  pooledOptimizer,
  type Connection,
  type Kind,
  type OtherNode,
} from './presets-clients.js';

const OTHER_NODES = 3;
const KEYS_PER_OTHER_NODE = 1200;
const HILO_CALLERS = 4;
const KEYS_PER_HILO_CALLER = 900;

/** Builds one simulated node on its own connection; `open` opens further connections (Marten opens one per hi). */
type MakeNode = (connection: Connection, open: () => Promise<Connection>) => OtherNode;

/** Runs statements on a connection of its own (DDL as the other system's schema tool would run it). */
export async function run(kind: Kind, url: string, ...statements: string[]): Promise<void> {
  const connection = await openConnection(kind, url);
  try {
    for (const statement of statements) await connection.query(statement);
  } finally {
    await connection.end();
  }
}

async function scalarOf(kind: Kind, url: string, sql: string): Promise<string> {
  const connection = await openConnection(kind, url);
  try {
    const { rows } = await connection.query(sql);
    return String(Object.values(rows[0]!)[0]);
  } finally {
    await connection.end();
  }
}

/**
 * `OTHER_NODES` simulated nodes (each its own connection) and a hilo generator from `preset` with
 * `HILO_CALLERS` concurrent callers draw keys at the same time; asserts every key is distinct and positive.
 * `first`: who takes one key before the others start — `'hilo'`, `'other'` (it creates the row its own
 * way) or `'none'` (everyone starts at once on a fresh sequence).
 */
export async function runBothSides(
  kind: Kind,
  url: string,
  makeNode: MakeNode,
  preset: (client: SqlClient) => InteropPreset,
  segment: string,
  first: 'hilo' | 'other' | 'none' = 'hilo',
): Promise<{ mine: bigint[]; other: bigint[] }> {
  const client = await connect(url);
  const opened: Connection[] = [];
  const open = async () => {
    const connection = await openConnection(kind, url);
    opened.push(connection);
    return connection;
  };
  const openOwned = () => openConnection(kind, url);
  try {
    const nodes = await Promise.all(Array.from({ length: OTHER_NODES }, async () => makeNode(await open(), openOwned)));
    const hilo = createHiLoGenerator({ ...preset(client), adaptive: false, keyType: 'bigint' });
    const warmUp: bigint[] = [];
    const otherWarmUp: bigint[] = [];
    if (first === 'other') otherWarmUp.push(await nodes[0]!());
    else if (first === 'hilo') warmUp.push(await hilo.next(segment));
    const otherSide = nodes.map(async (next) => {
      const keys: bigint[] = [];
      for (let i = 0; i < KEYS_PER_OTHER_NODE; i++) keys.push(await next());
      return keys;
    });
    const hiloSide = Array.from({ length: HILO_CALLERS }, async () => {
      const keys: bigint[] = [];
      for (let i = 0; i < KEYS_PER_HILO_CALLER; i++) keys.push(await hilo.next(segment));
      return keys;
    });
    const [other, mine] = await Promise.all([Promise.all(otherSide), Promise.all(hiloSide)]);
    await hilo.close();
    const all = [...warmUp, ...otherWarmUp, ...mine.flat(), ...other.flat()];
    expect(all.length).toBe(
      (first === 'none' ? 0 : 1) + HILO_CALLERS * KEYS_PER_HILO_CALLER + OTHER_NODES * KEYS_PER_OTHER_NODE,
    );
    const seen = new Set<bigint>();
    const duplicates = all.filter((key) => (seen.has(key) ? true : (seen.add(key), false)));
    expect(duplicates.slice(0, 5)).toEqual([]);
    expect(all.filter((key) => key < 1n)).toEqual([]);
    return { mine: [...warmUp, ...mine.flat()], other: [...otherWarmUp, ...other.flat()] };
  } finally {
    await Promise.all(opened.map((c) => c.end()));
    await client.close();
  }
}

/**
 * Takes keys in a fixed order from simulated nodes and hilo and returns them: `steps` lists who takes the
 * next key (`'hilo'` or the index of a node). hilo reserves one block at a time, without prefetching.
 */
export async function interleave(
  kind: Kind,
  url: string,
  makeNode: MakeNode,
  nodeCount: number,
  preset: (client: SqlClient) => InteropPreset,
  segment: string,
  steps: readonly ('hilo' | number)[],
): Promise<bigint[]> {
  const client = await connect(url);
  const opened: Connection[] = [];
  try {
    const nodes: OtherNode[] = [];
    for (let i = 0; i < nodeCount; i++) {
      const connection = await openConnection(kind, url);
      opened.push(connection);
      nodes.push(makeNode(connection, () => openConnection(kind, url)));
    }
    const hilo = createHiLoGenerator({ ...preset(client), adaptive: false, prefetchAt: false, keyType: 'bigint' });
    const keys: bigint[] = [];
    for (const step of steps) keys.push(step === 'hilo' ? await hilo.next(segment) : await nodes[step]!());
    await hilo.close();
    return keys;
  } finally {
    await Promise.all(opened.map((c) => c.end()));
    await client.close();
  }
}

const times = (n: number, who: 'hilo' | number): ('hilo' | number)[] => Array.from({ length: n }, () => who);

/** Hibernate's DDL for a sequence: `PostgreSQLSequenceSupport` / `MariaDBSequenceSupport` (`… nocache`). */
function hibernateSequenceDdl(kind: Kind, name: string, start: number, increment: number): string {
  return `create sequence ${name} start with ${start} increment by ${increment}${kind === 'mysql' ? ' nocache' : ''}`;
}

/** Hibernate's DDL for `hibernate_sequences` (`TableGenerator.registerExportables`). */
function hibernateTableDdl(kind: Kind, table = 'hibernate_sequences'): string {
  const engine = kind === 'mysql' ? ' engine=InnoDB' : '';
  return `create table ${table} (next_val bigint, sequence_name varchar(255) not null, primary key (sequence_name))${engine}`;
}

/** Defines every preset test for `kind`. */
export function presetSuite(kind: Kind): void {
  const on = kind === 'postgres' ? 'PostgreSQL' : 'MariaDB';

  describeDatabase(kind, `presets on ${on}: Hibernate sequence generator`, (db) => {
    it('pooled (allocationSize 50): Hibernate nodes and hilo share orders_seq without a duplicate', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'orders_seq', 1, 50));
      await runBothSides(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateSequenceFetch(c, 'orders_seq'), 50n, 1n),
        (client) => hibernateSequencePreset(client),
        'orders',
      );
    });

    it('pooled-lo (20): Hibernate nodes and hilo share items_seq without a duplicate', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'items_seq', 1, 20));
      await runBothSides(
        kind,
        db.url,
        (c) => pooledLoOptimizer(hibernateSequenceFetch(c, 'items_seq'), 20n),
        (client) => hibernateSequencePreset(client, { optimizer: 'pooled-lo', incrementSize: 20 }),
        'items',
      );
    });

    it('hilo (HiLoOptimizer, 30): Hibernate nodes and hilo share notes_seq without a duplicate', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'notes_seq', 1, 1));
      await runBothSides(
        kind,
        db.url,
        (c) => hiloOptimizer(hibernateSequenceFetch(c, 'notes_seq'), 30n),
        (client) => hibernateSequencePreset(client, { optimizer: 'hilo', incrementSize: 30 }),
        'notes',
      );
    });

    it('legacy-hilo (30): Hibernate nodes and hilo share lines_seq without a duplicate', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'lines_seq', 1, 1));
      await runBothSides(
        kind,
        db.url,
        (c) => legacyHiLoOptimizer(hibernateSequenceFetch(c, 'lines_seq'), 30n),
        (client) => hibernateSequencePreset(client, { optimizer: 'legacy-hilo', incrementSize: 30 }),
        'lines',
      );
    });

    it('pooled, cold start: Hibernate nodes and hilo start at once on a fresh sequence (first value 1 is one key)', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'cold_seq', 1, 50));
      await runBothSides(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateSequenceFetch(c, 'cold_seq'), 50n, 1n),
        (client) => hibernateSequencePreset(client, { create: false }),
        'cold',
        'none',
      );
    });

    it('sequences created by hilo (pooled, hilo): Hibernate nodes follow without a duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateSequenceFetch(c, 'made_seq'), 40n, 1n),
        (client) => hibernateSequencePreset(client, { incrementSize: 40 }),
        'made',
      );
      await runBothSides(
        kind,
        db.url,
        (c) => hiloOptimizer(hibernateSequenceFetch(c, 'madehilo_seq'), 40n),
        (client) => hibernateSequencePreset(client, { optimizer: 'hilo', incrementSize: 40 }),
        'madehilo',
      );
    });

    it('exact keys, one after the other: pooled, pooled-lo, hilo, legacy-hilo', async () => {
      await run(
        kind,
        db.url,
        hibernateSequenceDdl(kind, 'a_seq', 1, 10),
        hibernateSequenceDdl(kind, 'b_seq', 1, 10),
        hibernateSequenceDdl(kind, 'c_seq', 1, 1),
        hibernateSequenceDdl(kind, 'd_seq', 1, 1),
      );
      const steps = [0, 'hilo', ...times(9, 0), 0] as const;
      // pooled: Hibernate's first value 1 is the initial value, a block of one key; hilo v = 11 → 2…10 (11 is left
      // to Hibernate 5+, 1 to 3.6); Hibernate v = 21 → 12…21
      expect(
        await interleave(
          kind,
          db.url,
          (c) => pooledOptimizer(hibernateSequenceFetch(c, 'a_seq'), 10n, 1n),
          1,
          (client) => hibernateSequencePreset(client, { incrementSize: 10 }),
          'a',
          [0, 'hilo', 0],
        ),
      ).toEqual([1n, 2n, 12n]);
      // pooled-lo: Hibernate 1…10 (v = 1), hilo 11… (v = 11), Hibernate 21… (v = 21)
      expect(
        await interleave(
          kind,
          db.url,
          (c) => pooledLoOptimizer(hibernateSequenceFetch(c, 'b_seq'), 10n),
          1,
          (client) => hibernateSequencePreset(client, { optimizer: 'pooled-lo', incrementSize: 10 }),
          'b',
          steps,
        ),
      ).toEqual([1n, 11n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 21n]);
      // hilo: v = 1 → 1…10 for Hibernate, v = 2 → 11…20 for hilo, v = 3 → 21… for Hibernate
      expect(
        await interleave(
          kind,
          db.url,
          (c) => hiloOptimizer(hibernateSequenceFetch(c, 'c_seq'), 10n),
          1,
          (client) => hibernateSequencePreset(client, { optimizer: 'hilo', incrementSize: 10 }),
          'c',
          steps,
        ),
      ).toEqual([1n, 11n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 21n]);
      // legacy-hilo: v = 1 → 11…21 for Hibernate, v = 2 → 22…32 for hilo, v = 3 → 33… for Hibernate
      expect(
        await interleave(
          kind,
          db.url,
          (c) => legacyHiLoOptimizer(hibernateSequenceFetch(c, 'd_seq'), 10n),
          1,
          (client) => hibernateSequencePreset(client, { optimizer: 'legacy-hilo', incrementSize: 10 }),
          'd',
          [...times(11, 0), 'hilo', 0],
        ),
      ).toEqual([11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n, 19n, 20n, 21n, 22n, 33n]);
    });

    it('pooled with initial_value 1000: hilo never hands out a key below it', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'big_seq', 1000, 10));
      // hilo first: v = 1000 is the initial value, no key for hilo, so it tops up with v = 1010 → 1001…1009;
      // Hibernate's first value 1020 is not the initial value → 1011…1020
      expect(
        await interleave(
          kind,
          db.url,
          (c) => pooledOptimizer(hibernateSequenceFetch(c, 'big_seq'), 10n, 1000n),
          1,
          (client) => hibernateSequencePreset(client, { incrementSize: 10, initialValue: 1000, create: false }),
          'big',
          ['hilo', 'hilo', 0],
        ),
      ).toEqual([1001n, 1002n, 1011n]);
    });

    it('refuses a sequence whose INCREMENT BY differs from increment_size (Hibernate checks it too)', async () => {
      await run(kind, db.url, hibernateSequenceDdl(kind, 'odd_seq', 1, 10));
      const client = await connect(db.url);
      try {
        const hilo = createHiLoGenerator({
          ...hibernateSequencePreset(client, { incrementSize: 50 }),
          adaptive: false,
        });
        await expect(hilo.next('odd')).rejects.toMatchObject({ code: expect.stringMatching(/MISMATCH/i) });
        await hilo.close();
      } finally {
        await client.close();
      }
    });
  });

  describeDatabase(kind, `presets on ${on}: Hibernate presets refuse shapes they do not recognise`, (db) => {
    /** Asserts that `next` rejects with `pattern` and that the objects were left as they were. */
    async function refused(
      preset: (client: SqlClient) => InteropPreset,
      segment: string,
      pattern: RegExp,
    ): Promise<void> {
      const client = await connect(db.url);
      try {
        const hilo = createHiLoGenerator({ ...preset(client), adaptive: false, keyType: 'bigint' });
        await expect(hilo.next(segment)).rejects.toMatchObject({
          code: 'HILO_MISMATCH',
          message: expect.stringMatching(pattern),
        });
        await hilo.close();
      } finally {
        await client.close();
      }
    }

    it(
      'Hibernate 3.6 @SequenceGenerator(allocationSize = 50) (INCREMENT BY 1, SequenceHiLoGenerator): ' +
        'the hint names legacy-hilo with incrementSize 49',
      async () => {
        await run(kind, db.url, hibernateSequenceDdl(kind, 'jpa_seq', 1, 1));
        await refused(
          (client) => hibernateSequencePreset(client, { incrementSize: 50 }),
          'jpa',
          /INCREMENT BY 1.*optimizer: 'legacy-hilo', incrementSize: 49/,
        );
        await refused(
          (client) => hibernateSequencePreset(client, { optimizer: 'pooled-lo', incrementSize: 50 }),
          'jpa',
          /optimizer: 'legacy-hilo', incrementSize: 49/,
        );
        await expect(
          scalarOf(
            kind,
            db.url,
            kind === 'postgres' ? 'select last_value from jpa_seq' : 'select next_not_cached_value from jpa_seq',
          ),
        ).resolves.toBe('1');
      },
    );

    it(
      'a hilo sequence (INCREMENT BY 1) refused by pooled; a pooled one (INCREMENT BY 50) refused ' +
        'by hilo, naming the matching options',
      async () => {
        await run(kind, db.url, hibernateSequenceDdl(kind, 'p50_seq', 1, 50));
        await refused(
          (client) => hibernateSequencePreset(client, { optimizer: 'hilo', incrementSize: 50 }),
          'p50',
          /optimizer: 'pooled', incrementSize: 50.*optimizer: 'pooled-lo', incrementSize: 50/,
        );
        await refused(
          (client) => hibernateSequencePreset(client, { optimizer: 'legacy-hilo', incrementSize: 49 }),
          'p50',
          /INCREMENT BY 50/,
        );
      },
    );

    it(
      'Hibernate 3.6 @TableGenerator (MultipleHiLoPerTableGenerator: int next_val holding a hi, no ' +
        'primary key): refused, no key handed out',
      async () => {
        await run(
          kind,
          db.url,
          'create table jpa_sequences (sequence_name varchar(255), next_val integer)',
          "insert into jpa_sequences (sequence_name, next_val) values ('orders', 1)",
        );
        for (const optimizer of ['pooled', 'pooled-lo', 'hilo', 'legacy-hilo'] as const) {
          await refused(
            (client) => hibernateTablePreset(client, { table: 'jpa_sequences', optimizer }),
            'orders',
            /MultipleHiLoPerTableGenerator.*new_generator_mappings=true/,
          );
          await refused(
            (client) => hibernateTablePreset(client, { table: 'jpa_sequences', optimizer, create: false }),
            'orders',
            /next_val\W* is int/,
          );
        }
        expect(await scalarOf(kind, db.url, "select next_val from jpa_sequences where sequence_name = 'orders'")).toBe(
          '1',
        );
      },
    );

    it('a bigint value column without a primary key on the segment column is refused too', async () => {
      await run(kind, db.url, 'create table nopk_sequences (sequence_name varchar(255) not null, next_val bigint)');
      await refused(
        (client) => hibernateTablePreset(client, { table: 'nopk_sequences' }),
        'orders',
        /is not its primary key/,
      );
    });

    it('a table named in valueColumn that has no such column is refused', async () => {
      await run(kind, db.url, hibernateTableDdl(kind, 'other_sequences'));
      await refused(
        (client) => hibernateTablePreset(client, { table: 'other_sequences', valueColumn: 'next_hi' }),
        'orders',
        /has no column/,
      );
    });

    if (kind === 'mysql') {
      it(
        'Hibernate 3.x on MariaDB: a one-row table named like the sequence (MySQL dialects have no sequences) ' +
          'gets a clear refusal',
        async () => {
          await run(kind, db.url, 'create table orders_seq (next_val bigint)', 'insert into orders_seq values (1)');
          await refused(
            (client) => hibernateSequencePreset(client),
            'orders',
            /is a table, not a sequence.*MariaDB103Dialect/,
          );
          expect(await scalarOf(kind, db.url, 'select next_val from orders_seq')).toBe('1');
        },
      );
    }
  });

  describeDatabase(
    kind,
    `presets on ${on}: EF Core, NHibernate and Marten presets refuse shapes they do not recognise`,
    (db) => {
      /** Asserts that the first key is refused with `code` and a message matching `pattern`; no key is handed out. */
      async function refused(
        preset: (client: SqlClient) => InteropPreset,
        segment: string,
        pattern: RegExp,
        code = 'HILO_MISMATCH',
      ): Promise<void> {
        const client = await connect(db.url);
        try {
          const hilo = createHiLoGenerator({ ...preset(client), adaptive: false, keyType: 'bigint' });
          await expect(hilo.next(segment)).rejects.toMatchObject({ code, message: expect.stringMatching(pattern) });
          expect(hilo.stats()[segment]?.keysReserved ?? 0).toBe(0);
          await hilo.close();
        } finally {
          await client.close();
        }
      }

      it('NHibernate: a next_hi column of a non-integer type (text, decimal, float) is refused and left as it was', async () => {
        for (const [name, type] of [
          ['nh_text', 'varchar(20)'],
          ['nh_decimal', 'decimal(20,2)'],
          ['nh_float', kind === 'postgres' ? 'double precision' : 'double'],
        ] as const) {
          await run(kind, db.url, `create table ${name} (next_hi ${type})`, `insert into ${name} values (5)`);
          await refused(
            (client) => nhibernatePreset(client, { table: name, maxLo: 10 }),
            'orders',
            new RegExp(
              `nhibernatePreset: .*${name}.* is not NHibernate's hi/lo table \\(next_hi is .*not an integer type\\).*\`column\``,
            ),
          );
          await refused(
            (client) => nhibernatePreset(client, { table: name, maxLo: 10, create: false }),
            'orders',
            /not an integer type/,
          );
          expect(Number(await scalarOf(kind, db.url, `select next_hi from ${name}`))).toBe(5);
        }
      });

      it(
        'NHibernate: a column option naming a column the table does not have is refused; a missing table ' +
          'with create: false says how to create it',
        async () => {
          await run(kind, db.url, 'create table nh_other (hi bigint)', 'insert into nh_other values (3)');
          await refused(
            (client) => nhibernatePreset(client, { table: 'nh_other', create: false }),
            'orders',
            /has no column next_hi/,
          );
          await refused(
            (client) => nhibernatePreset(client, { table: 'nh_missing', create: false }),
            'orders',
            /does not exist|missing/i,
            'HILO_SOURCE_FAILED',
          );
          // the fix is the hint's wording, not its object: `${hint}` once printed "[object Object]"
          await refused(
            (client) => nhibernatePreset(client, { table: 'nh_missing', create: false }),
            'orders',
            /nh_missing.* exist\. Create it as NHibernate's schema export does: create table .*nh_missing.*, or pass `create: true`\.$/,
            'HILO_SOURCE_FAILED',
          );
          expect(await scalarOf(kind, db.url, 'select hi from nh_other')).toBe('3');
        },
      );

      it('Hibernate sequence preset: a CYCLE sequence is refused (its values, and so keys, would repeat after the maximum)', async () => {
        await run(
          kind,
          db.url,
          `create sequence cyc_seq start with 1 increment by 50 maxvalue 100000 cycle${kind === 'mysql' ? ' nocache' : ''}`,
        );
        await refused((client) => hibernateSequencePreset(client, { incrementSize: 50 }), 'cyc', /CYCLE.*no cycle/);
      });

      if (kind === 'postgres') {
        it('EF Core: a table named like the sequence, and a CYCLE sequence, are refused before any nextval', async () => {
          await run(
            kind,
            db.url,
            'create table "TableHiLo" (id bigint)',
            'create sequence "CycleHiLo" start with 1 increment by 10 maxvalue 1000 cycle',
          );
          await refused(
            (client) => efCorePreset(client, { sequence: 'TableHiLo' }),
            'orders',
            /efCorePreset: "TableHiLo" is a table, not a sequence.*`sequence`/,
          );
          await refused((client) => efCorePreset(client, { sequence: 'CycleHiLo' }), 'orders', /declared CYCLE/);
          expect(await scalarOf(kind, db.url, 'select is_called from "CycleHiLo"')).toBe('false');
        });

        it(
          'Marten: mt_hilo without a key on entity_name, or with a text hi_value, is refused and left ' +
            'as it was; a missing one with create: false says how to create it',
          async () => {
            await run(
              kind,
              db.url,
              'create schema m_nopk',
              'create table m_nopk.mt_hilo (entity_name varchar, hi_value bigint default 0)',
              "insert into m_nopk.mt_hilo values ('Order', 7)",
            );
            await refused(
              (client) => martenPreset(client, { schema: 'm_nopk' }),
              'Order',
              /martenPreset: .* is not Marten's hi\/lo table \(entity_name is not its primary key\).*`schema`/,
            );
            await run(
              kind,
              db.url,
              'create schema m_text',
              'create table m_text.mt_hilo (entity_name varchar primary key, hi_value text)',
              "insert into m_text.mt_hilo values ('Order', '7')",
            );
            await refused(
              (client) => martenPreset(client, { schema: 'm_text', create: false }),
              'Order',
              /hi_value is text, not an integer type/,
            );
            await refused(
              (client) => martenPreset(client, { schema: 'm_missing', create: false }),
              'Order',
              /mt_hilo.* does not exist\. Let Marten create its schema, or pass `create: true` \(creates .*\)\.$/,
              'HILO_SOURCE_FAILED',
            );
            expect(
              await scalarOf(kind, db.url, "select hi_value from m_nopk.mt_hilo where entity_name = 'Order'"),
            ).toBe('7');
            expect(
              await scalarOf(kind, db.url, "select hi_value from m_text.mt_hilo where entity_name = 'Order'"),
            ).toBe('7');
          },
        );
      }
    },
  );

  describeDatabase(kind, `presets on ${on}: Hibernate table generator (hibernate_sequences)`, (db) => {
    const table = (
      segmentValue: string,
      incrementSize: bigint,
      applyIncrementSize: boolean,
      storeLastUsed = true,
      initialValue = 1n,
    ) => ({ segmentValue, incrementSize, applyIncrementSize, storeLastUsed, initialValue }) as const;

    it('pooled, stored_last_used (the default): exact keys where the row holds the last value handed out', async () => {
      await run(kind, db.url, hibernateTableDdl(kind));
      // Hibernate inserts 0 and returns 1 (the initial value: key 1 alone); hilo reads 50 → value 51 → 2…50;
      // Hibernate reads 100 → value 101 → 52…101
      const keys = await interleave(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateTableFetch(c, table('exact', 50n, true)), 50n, 1n),
        1,
        (client) => hibernateTablePreset(client, { create: false }),
        'exact',
        [0, 'hilo', 0],
      );
      expect(keys).toEqual([1n, 2n, 52n]);
      expect(
        await scalarOf(kind, db.url, "select next_val from hibernate_sequences where sequence_name = 'exact'"),
      ).toBe('150');
    });

    it('pooled: Hibernate nodes (select … for update, compare-and-set) and hilo share one row without a duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateTableFetch(c, table('orders', 50n, true)), 50n, 1n),
        (client) => hibernateTablePreset(client),
        'orders',
        'other',
      );
    });

    it('pooled, stored_last_used = false: the row holds the next value; no duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateTableFetch(c, table('legacyrow', 25n, true, false)), 25n, 1n),
        (client) => hibernateTablePreset(client, { incrementSize: 25, storeLastUsed: false }),
        'legacyrow',
      );
    });

    it('pooled-lo, row created by hilo: both sides share it without a duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => pooledLoOptimizer(hibernateTableFetch(c, table('parcels', 25n, true)), 25n),
        (client) => hibernateTablePreset(client, { optimizer: 'pooled-lo', incrementSize: 25 }),
        'parcels',
      );
    });

    it('hilo and legacy-hilo (row advanced by 1): no duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => hiloOptimizer(hibernateTableFetch(c, table('h', 20n, false)), 20n),
        (client) => hibernateTablePreset(client, { optimizer: 'hilo', incrementSize: 20 }),
        'h',
      );
      await runBothSides(
        kind,
        db.url,
        (c) => legacyHiLoOptimizer(hibernateTableFetch(c, table('lh', 20n, false)), 20n),
        (client) => hibernateTablePreset(client, { optimizer: 'legacy-hilo', incrementSize: 20 }),
        'lh',
      );
    });

    it('initial_value 101 (JPA initialValue = 100): both sides start at 101', async () => {
      const keys = await interleave(
        kind,
        db.url,
        (c) => pooledOptimizer(hibernateTableFetch(c, table('late', 10n, true, true, 101n)), 10n, 101n),
        1,
        (client) => hibernateTablePreset(client, { incrementSize: 10, initialValue: 101 }),
        'late',
        ['hilo', 'hilo', 0],
      );
      // hilo inserts 100, reads value 101 (no key for hilo), then 111 → 102…110; Hibernate reads 121 → 112…121
      expect(keys).toEqual([102n, 103n, 112n]);
    });
  });

  describeDatabase(kind, `presets on ${on}: NHibernate hibernate_unique_key`, (db) => {
    it('NHibernate nodes and hilo share the single next_hi row without a duplicate', async () => {
      // NHibernate's schema export (TableGenerator.SqlCreateStrings)
      await run(
        kind,
        db.url,
        'create table hibernate_unique_key ( next_hi bigint )',
        'insert into hibernate_unique_key values ( 1 )',
      );
      await runBothSides(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 49n }),
        (client) => nhibernatePreset(client, { maxLo: 49 }),
        'orders',
      );
    });

    it('a `where` row starting at hi 0 (key 0 skipped) is shared without a duplicate; other rows untouched', async () => {
      await run(
        kind,
        db.url,
        'create table hilo_keys (next_hi bigint, entity varchar(255))',
        "insert into hilo_keys values (5, 'other'), (0, 'orders')",
      );
      await runBothSides(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 29n, table: 'hilo_keys', where: "entity = 'orders'" }),
        (client) =>
          nhibernatePreset(client, {
            maxLo: 29,
            table: 'hilo_keys',
            where: (segment) => ({ column: 'entity', value: segment }),
          }),
        'orders',
        'other',
      );
      expect(await scalarOf(kind, db.url, "select next_hi from hilo_keys where entity = 'other'")).toBe('5');
    });

    it('table and rows created by hilo (next_hi = 1, as the schema export): NHibernate nodes follow without a duplicate', async () => {
      await runBothSides(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 19n, table: 'made_key' }),
        (client) => nhibernatePreset(client, { maxLo: 19, table: 'made_key' }),
        'orders',
      );
      await runBothSides(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 19n, table: 'made_rows', where: "entity = 'lines'" }),
        (client) =>
          nhibernatePreset(client, {
            maxLo: 19,
            table: 'made_rows',
            where: (segment) => ({ column: 'entity', value: segment }),
          }),
        'lines',
      );
      expect(await scalarOf(kind, db.url, 'select count(*) from made_key')).toBe('1');
    });

    it('exact keys: hi 0 gives 1…max_lo, then hi·(max_lo + 1) + 0…max_lo; max_lo 0 gives one key per hi', async () => {
      await run(
        kind,
        db.url,
        'create table nh_exact (next_hi bigint, entity varchar(255))',
        "insert into nh_exact values (0, 'a'), (0, 'b')",
      );
      const a = await interleave(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 9n, table: 'nh_exact', where: "entity = 'a'" }),
        1,
        (client) =>
          nhibernatePreset(client, { maxLo: 9, table: 'nh_exact', where: () => ({ column: 'entity', value: 'a' }) }),
        'a',
        [0, 'hilo', ...times(8, 0), 0],
      );
      expect(a).toEqual([1n, 10n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 20n]);
      const b = await interleave(
        kind,
        db.url,
        (c) => nhibernateNode(c, { maxLo: 0n, table: 'nh_exact', where: "entity = 'b'" }),
        1,
        (client) =>
          nhibernatePreset(client, { maxLo: 0, table: 'nh_exact', where: () => ({ column: 'entity', value: 'b' }) }),
        'b',
        [0, 'hilo', 0],
      );
      expect(b).toEqual([1n, 2n, 3n]);
    });
  });

  if (kind === 'postgres') {
    describeDatabase(kind, `presets on ${on}: EF Core (Npgsql) hi/lo sequence`, (db) => {
      it('EF Core clients and hilo draw distinct keys from EntityFrameworkHiLoSequence concurrently', async () => {
        // the sequence as EF Core's Npgsql migration creates it for UseHiLo()
        await run(
          kind,
          db.url,
          'CREATE SEQUENCE "EntityFrameworkHiLoSequence" START WITH 1 INCREMENT BY 10 NO MINVALUE NO MAXVALUE NO CYCLE',
        );
        const { mine, other } = await runBothSides(
          kind,
          db.url,
          (c) => efCoreNode(c, 'EntityFrameworkHiLoSequence', 10n),
          (client) => efCorePreset(client),
          'orders',
        );
        expect(mine.some((key) => key > other[0]!)).toBe(true);
      });

      it('exact keys: each nextval v is the block v … v + 9 on both sides', async () => {
        await run(
          kind,
          db.url,
          'CREATE SEQUENCE "Exact" START WITH 1 INCREMENT BY 10 NO MINVALUE NO MAXVALUE NO CYCLE',
        );
        const keys = await interleave(
          kind,
          db.url,
          (c) => efCoreNode(c, 'Exact', 10n),
          1,
          (client) => efCorePreset(client, { sequence: 'Exact' }),
          'orders',
          [0, 'hilo', 0, ...times(8, 0), 0],
        );
        expect(keys).toEqual([1n, 11n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 21n]);
      });

      it('refuses a sequence whose INCREMENT BY differs from the preset (efcore.pg #843)', async () => {
        await run(kind, db.url, 'create sequence "OtherHiLo" start with 1 increment by 10');
        const client = await connect(db.url);
        try {
          const hilo = createHiLoGenerator({
            ...efCorePreset(client, { sequence: 'OtherHiLo', incrementBy: 20 }),
            adaptive: false,
          });
          await expect(hilo.next('orders')).rejects.toMatchObject({ code: expect.stringMatching(/MISMATCH/i) });
          await hilo.close();
        } finally {
          await client.close();
        }
      });
    });

    describeDatabase(kind, `presets on ${on}: Marten mt_hilo`, (db) => {
      it('Marten nodes (mt_get_next_hi on a new connection per hi) and hilo share one entity row without a duplicate', async () => {
        await run(kind, db.url, MARTEN_SCHEMA);
        await runBothSides(
          kind,
          db.url,
          (_c, open) => martenNode(open, 'Order', 40n),
          (client) => martenPreset(client, { maxLo: 40, attempts: 1000 }),
          'Order',
        );
      });

      it('Marten creates the row (hi 0), hilo continues from it', async () => {
        await runBothSides(
          kind,
          db.url,
          (_c, open) => martenNode(open, 'User', 25n),
          (client) => martenPreset(client, { maxLo: 25, attempts: 1000 }),
          'User',
          'other',
        );
      });

      it('exact keys with the default MaxLo 1000: hi 0 → 1…1000, hi 1 → 1001…2000', async () => {
        const keys = await interleave(
          kind,
          db.url,
          (_c, open) => martenNode(open, 'Invoice', 1000n),
          1,
          (client) => martenPreset(client),
          'Invoice',
          [0, 'hilo', 0],
        );
        expect(keys).toEqual([1n, 1001n, 2n]);
      });
    });
  } else {
    describeDatabase(kind, `presets on ${on}: PostgreSQL-only presets`, (db) => {
      it('efCorePreset and martenPreset refuse a MariaDB client with a HiLoConfigurationError naming PostgreSQL', async () => {
        const client = await connect(db.url);
        try {
          for (const make of [() => efCorePreset(client), () => martenPreset(client)]) {
            let error: unknown;
            try {
              make();
            } catch (e) {
              error = e;
            }
            expect(error).toBeInstanceOf(HiLoConfigurationError);
            expect((error as Error).message).toMatch(/supports PostgreSQL only/);
            expect((error as Error).message).toMatch(/MariaDB/);
          }
        } finally {
          await client.close();
        }
      });
    });
  }
}
