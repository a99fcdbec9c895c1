/**
 * A real Hibernate 3.6.10 (Debian's libhibernate3-java, interop/hibernate/HibernateNode.java) and hilo write
 * one table at the same time, for every Hibernate configuration README-interop maps; the table has no primary
 * key, so a key handed out twice shows up as a duplicate row, and there must be none. The presets get
 * `storedKeys`, so every block is verified too, and no false alarm may stop hilo. Shared by
 * hibernate-interop.postgres.test.ts and hibernate-interop.mysql.test.ts.
 */
import { describeDatabase, describeHibernate, startHibernateNode } from '@hilo/testing';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import type { StoredKeyColumn } from '../src/engine/types.js';
import { hibernateSequencePreset, hibernateTablePreset } from '../src/presets/hibernate.js';
import { nhibernatePreset } from '../src/presets/nhibernate.js';
import { type InteropPreset } from '../src/presets/shared.js';
import type { Kind } from './presets-clients.js';
import { run } from './presets-suite.js';

const HIBERNATE_ROWS = 400;

/** The presets check every block against the key table both sides write (no false alarm with matching settings). */
const keysOf = (table: string): StoredKeyColumn[] => [{ segment: table, table, column: 'id' }];
const HILO_CALLERS = 3;
const ROWS_PER_HILO_CALLER = 150;

interface Shared {
  /** The table both sides write. */
  readonly table: string;
  /** Hibernate's generator: `class;param=value,…`. */
  readonly generator: string;
  /** The matching preset. */
  readonly preset: (client: SqlClient) => InteropPreset;
}

function jdbcOf(url: string): string {
  const u = new URL(url);
  const scheme = u.protocol.startsWith('postgres') ? 'postgresql' : 'mariadb';
  const query = new URLSearchParams({ user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) });
  return `jdbc:${scheme}://${u.hostname}:${u.port || (scheme === 'postgresql' ? 5432 : 3306)}${u.pathname}?${query.toString()}`;
}

async function duplicatesIn(url: string, table: string): Promise<{ rows: number; duplicates: number; hilo: number }> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ n: unknown; d: unknown; h: unknown }>(
      `select count(*) as n, count(*) - count(distinct id) as d, sum(case when who = 'hilo' then 1 else 0 end) as h from ${table}`,
    );
    return { rows: Number(rows[0]!.n), duplicates: Number(rows[0]!.d), hilo: Number(rows[0]!.h) };
  } finally {
    await client.close();
  }
}

/** hilo's side: `HILO_CALLERS` callers insert rows with keys from `preset` into `table`. */
async function hiloWrites(url: string, shared: Shared): Promise<void> {
  const client = await connect(url);
  try {
    const hilo = createHiLoGenerator({ ...shared.preset(client), adaptive: false, keyType: 'bigint' });
    const placeholder = client.dialect === 'postgres' ? '$1' : '?';
    await Promise.all(
      Array.from({ length: HILO_CALLERS }, async () => {
        for (let i = 0; i < ROWS_PER_HILO_CALLER; i++) {
          const id = await hilo.next(shared.table);
          await client.query(`insert into ${shared.table} (id, who) values (${placeholder}, 'hilo')`, [String(id)]);
        }
      }),
    );
    await hilo.close();
  } finally {
    await client.close();
  }
}

/** Defines the real-Hibernate tests for `kind`. */
export function hibernateInteropSuite(kind: Kind): void {
  const on = kind === 'postgres' ? 'PostgreSQL' : 'MariaDB';
  const dialect =
    kind === 'postgres' ? 'org.hibernate.dialect.PostgreSQLDialect' : 'org.hibernate.dialect.MySQL5InnoDBDialect';
  const enhancedSequence = 'org.hibernate.id.enhanced.SequenceStyleGenerator';
  const enhancedTable = 'org.hibernate.id.enhanced.TableGenerator';

  const shared: Shared[] = [
    // the enhanced table generator: 3.6's row holds the next value (stored_last_used arrived in 5.3)
    {
      table: 't_table_pooled',
      generator: `${enhancedTable};table_name=hib_seqs,segment_value=tpooled,optimizer=pooled,increment_size=20`,
      preset: (c) =>
        hibernateTablePreset(c, {
          table: 'hib_seqs',
          segmentValue: () => 'tpooled',
          incrementSize: 20,
          storeLastUsed: false,
          create: false,
          storedKeys: keysOf('t_table_pooled'),
        }),
    },
    {
      table: 't_table_pooled_lo',
      generator: `${enhancedTable};table_name=hib_seqs,segment_value=tpooledlo,optimizer=pooled-lo,increment_size=20`,
      preset: (c) =>
        hibernateTablePreset(c, {
          table: 'hib_seqs',
          segmentValue: () => 'tpooledlo',
          optimizer: 'pooled-lo',
          incrementSize: 20,
          storeLastUsed: false,
          create: false,
          storedKeys: keysOf('t_table_pooled_lo'),
        }),
    },
    // TableHiLoGenerator (`hilo`): hibernate_unique_key(next_hi), the schema NHibernate shares
    {
      table: 't_table_hilo',
      generator: 'hilo;table=hib_unique_key,column=next_hi,max_lo=20',
      preset: (c) =>
        nhibernatePreset(c, { table: 'hib_unique_key', maxLo: 20, create: false, storedKeys: keysOf('t_table_hilo') }),
    },
  ];
  if (kind === 'postgres') {
    shared.push(
      {
        table: 't_seq_pooled',
        generator: `${enhancedSequence};sequence_name=pooled_seq,optimizer=pooled,increment_size=20`,
        preset: (c) =>
          hibernateSequencePreset(c, {
            sequenceName: () => 'pooled_seq',
            incrementSize: 20,
            create: false,
            storedKeys: keysOf('t_seq_pooled'),
          }),
      },
      {
        table: 't_seq_pooled_lo',
        generator: `${enhancedSequence};sequence_name=pooled_lo_seq,optimizer=pooled-lo,increment_size=20`,
        preset: (c) =>
          hibernateSequencePreset(c, {
            sequenceName: () => 'pooled_lo_seq',
            optimizer: 'pooled-lo',
            incrementSize: 20,
            create: false,
            storedKeys: keysOf('t_seq_pooled_lo'),
          }),
      },
      // JPA @SequenceGenerator(allocationSize = 50) under 3.6's defaults: SequenceHiLoGenerator (seqhilo), max_lo 49
      {
        table: 't_seq_jpa',
        generator: 'seqhilo;sequence=jpa_seq,max_lo=49',
        preset: (c) =>
          hibernateSequencePreset(c, {
            sequenceName: () => 'jpa_seq',
            optimizer: 'legacy-hilo',
            incrementSize: 49,
            create: false,
            storedKeys: keysOf('t_seq_jpa'),
          }),
      },
    );
  }

  describeHibernate(`real Hibernate 3.6 on ${on}`, (classpath) => {
    describeDatabase(kind, `real Hibernate 3.6 on ${on}: one JVM and hilo write the same tables`, (db) => {
      it('every mapped generator: 0 keys handed out twice; 3.6 @TableGenerator and a MariaDB sequence-as-table are refused', async () => {
        const refusedConfigs = [
          // JPA @TableGenerator under 3.6's defaults: MultipleHiLoPerTableGenerator (int hi column, no primary key)
          'jpa_rows;org.hibernate.id.MultipleHiLoPerTableGenerator;table=jpa_seqs,primary_key_column=sequence_name,' +
            'value_column=next_val,primary_key_value=jpa,max_lo=49',
          // on MariaDB 3.6 has no sequences: SequenceStyleGenerator keeps a table named like the sequence
          ...(kind === 'mysql'
            ? [`seq_rows;${enhancedSequence};sequence_name=fallback_seq,optimizer=pooled-lo,increment_size=20`]
            : []),
        ];
        // created before Hibernate's schema update, without a primary key, so a repeated key is counted, not refused
        await run(
          kind,
          db.url,
          ...[...shared.map((s) => s.table), 'jpa_rows', 'seq_rows'].map(
            (t) => `create table ${t} (id bigint not null, who varchar(255))`,
          ),
        );
        const node = startHibernateNode(classpath(), jdbcOf(db.url), dialect, HIBERNATE_ROWS, [
          ...shared.map((s) => `${s.table};${s.generator}`),
          ...refusedConfigs,
        ]);
        await node.ready;
        const done = node.go();
        await Promise.all([done, ...shared.map((s) => hiloWrites(db.url, s))]);
        for (const s of shared) {
          const counted = await duplicatesIn(db.url, s.table);
          expect({ table: s.table, ...counted }).toEqual({
            table: s.table,
            rows: HIBERNATE_ROWS + HILO_CALLERS * ROWS_PER_HILO_CALLER,
            duplicates: 0,
            hilo: HILO_CALLERS * ROWS_PER_HILO_CALLER,
          });
        }
        const client = await connect(db.url);
        try {
          for (const optimizer of ['pooled', 'pooled-lo', 'legacy-hilo'] as const) {
            const hilo = createHiLoGenerator({
              ...hibernateTablePreset(client, { table: 'jpa_seqs', optimizer, incrementSize: 49, create: false }),
              adaptive: false,
            });
            await expect(hilo.next('jpa')).rejects.toMatchObject({
              code: 'HILO_MISMATCH',
              message: expect.stringMatching(/MultipleHiLoPerTableGenerator/),
            });
            await hilo.close();
          }
          if (kind === 'mysql') {
            const hilo = createHiLoGenerator({
              ...hibernateSequencePreset(client, {
                sequenceName: () => 'fallback_seq',
                optimizer: 'pooled-lo',
                incrementSize: 20,
                create: false,
              }),
              adaptive: false,
            });
            await expect(hilo.next('fallback')).rejects.toMatchObject({
              code: 'HILO_MISMATCH',
              message: expect.stringMatching(/is a table, not a sequence/),
            });
            await hilo.close();
          }
        } finally {
          await client.close();
        }
      }, 120_000);
    });
  });
}
