// Kysely's schema-per-tenant (PostgreSQL) and database-per-tenant (MariaDB) pattern, `db.withSchema(tenant)`, with
// the table registered once (`tenants: '*'`, tenants found in the catalog) and with each tenant's table registered:
// 60 saves over two tenants with no tampering, then the one shared store set back (sequence restarted at 1, hi row
// set to 1) and a new process refused or lifted, never handing out a key any tenant's table holds.
import { createPool } from 'mysql2';
import pg from 'pg';
import { Kysely, MysqlDialect, PostgresDialect, type Dialect, type MysqlDialectConfig } from 'kysely';
import { describeDatabase, errorCodes, randomName, runStatements, type TestDatabase } from '@hilo/testing';
import { connect } from 'hilo-core';
import { hiloKysely, type HiLoKyselyOptions } from '../src/index.js';

type Kind = 'sequence' | 'table';

export function runKyselyTenants(kind: 'postgres' | 'mysql'): void {
  describeDatabase(kind, `kysely (${kind}): withSchema(tenant), one segment over two tenants`, (db: TestDatabase) =>
    describe('blocks of 10', () => tenantTests(kind, db)),
  );
}

function tenantTests(kind: 'postgres' | 'mysql', db: TestDatabase): void {
  const q = (name: string) => (kind === 'postgres' ? `"${name}"` : `\`${name}\``);
  const made: string[] = [];
  afterAll(async () => {
    await runStatements(
      db.url,
      made.map((t) => `drop schema ${q(t)}${kind === 'postgres' ? ' cascade' : ''}`),
    );
  });
  /** Two tenants with a copy of a table of a random name (MariaDB's catalog is the whole server's). */
  async function tenants(table: string): Promise<[string, string]> {
    const ts = [randomName('tenant'), randomName('tenant')] as [string, string];
    made.push(...ts);
    await runStatements(
      db.url,
      ts.flatMap((t) => [
        `create schema ${q(t)}`,
        `create table ${q(t)}.${q(table)} (id bigint primary key, note text)`,
      ]),
    );
    return ts;
  }
  const dialect = (): Dialect =>
    kind === 'postgres'
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: db.url, max: 2 }) })
      : new MysqlDialect({
          // mysql2's Pool type and Kysely 0.27's MysqlPool interface disagree on callback types; the pool is the same
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under Kysely 0.27 (kysely-compat)
          pool: createPool({ uri: db.url, connectionLimit: 2 }) as unknown as MysqlDialectConfig['pool'],
        });
  type Tables = HiLoKyselyOptions['tables'];
  /** An app drawing keys for `table` in whichever tenant each insert names. */
  function app(tables: Tables, table: string, more: Partial<HiLoKyselyOptions> = {}) {
    const hilo = hiloKysely({ url: db.url, blockSize: 10, prefetchAt: false, adaptive: false, tables, ...more });
    const kysely = new Kysely<Record<string, { id: number; note: string }>>({
      dialect: dialect(),
      plugins: [hilo.plugin],
    });
    return {
      /** One row into the tenant's copy of the table; the plugin fills its key. */
      async insert(tenant: string): Promise<void> {
        await hilo.insert(
          kysely
            .withSchema(tenant)
            .insertInto(table)
            .values({ note: tenant } as never),
        );
      },
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  }
  const keysOf = async (tenant: string, table: string): Promise<number[]> => {
    const client = await connect(db.url);
    try {
      const { rows } = await client.query<{ id: unknown }>(`select id from ${q(tenant)}.${q(table)}`);
      return rows.map((r) => Number(r.id));
    } finally {
      await client.close();
    }
  };
  const setBack = (source: Kind, segment: string) =>
    runStatements(db.url, [
      source === 'sequence'
        ? `alter sequence ${q(`${segment}_hilo_seq`)} restart with 1`
        : `update ${q('hilo_segments')} set next_value = 1 where segment = '${segment}'`,
    ]);

  const registrations: Array<[string, (table: string, ts: [string, string]) => Tables]> = [
    ["registered once with tenants: '*'", (table) => ({ [table]: { tenants: '*' } })],
    ["each tenant's table registered", (table, ts) => ({ [`${ts[0]}.${table}`]: true, [`${ts[1]}.${table}`]: true })],
  ];
  const sources: Kind[] = ['sequence', 'table'];
  describe.each(sources)('%s source', (source) => {
    it.each(registrations)(
      '%s: 60 saves, then a set-back store is refused, or lifted above both tenants',
      async (_, tablesOf) => {
        const table = randomName('orders');
        const ts = await tenants(table);
        const tables = tablesOf(table, ts);
        const first = app(tables, table, { source });
        try {
          for (let i = 0; i < 60; i++) await first.insert(ts[i % 2]!);
        } finally {
          await first.close();
        }
        const before = [...(await keysOf(ts[0], table)), ...(await keysOf(ts[1], table))];
        expect(before).toHaveLength(60);
        expect(new Set(before).size).toBe(60);
        await setBack(source, table);
        // a new process, in either tenant: refused
        for (const tenant of ts) {
          const refused = app(tables, table, { source });
          try {
            const error = await refused.insert(tenant).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(errorCodes(error)).toContain('HILO_STORE_BEHIND');
          } finally {
            await refused.close();
          }
        }
        // or lifted, above every tenant's keys
        const lifted = app(tables, table, { source, onStoreBehind: 'lift' });
        try {
          for (let i = 0; i < 20; i++) await lifted.insert(ts[i % 2]!);
        } finally {
          await lifted.close();
        }
        const after = [...(await keysOf(ts[0], table)), ...(await keysOf(ts[1], table))];
        expect(after).toHaveLength(80);
        expect(new Set(after).size).toBe(80);
        expect(Math.min(...after.filter((k) => !before.includes(k)))).toBeGreaterThan(Math.max(...before));
      },
    );
  });
}
