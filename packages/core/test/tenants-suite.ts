// DESIGN rule 10, on a real database: a segment's hi store and the tables its keys are checked against cover the
// same tenants (schemas on PostgreSQL, databases on MariaDB). Two tenants, blocks of 10, 60 saves with no tampering;
// then the store set back (sequence restarted at 1, hi row set to 1) and a new process, which is refused or lifts,
// never handing out a key any tenant's table holds. Every fix a refusal suggests is followed and checked.
import { describeDatabase, randomName, type TestDatabase } from '@hilo/testing';
import {
  HiLoConfigurationError,
  HiLoStoreBehindError,
  connect,
  createHiLo,
  raiseFloor,
  sqlStoredKeys,
  type SqlClient,
  type StoredKeyColumn,
} from 'hilo-core';
import { openKeySupply } from 'hilo-core/adapter-kit';

type Kind = 'sequence' | 'table';

export function runTenantsSuite(kind: 'postgres' | 'mysql'): void {
  describeDatabase(kind, `tenants (${kind}): one store, the same tenants as its checks`, (db: TestDatabase) =>
    describe('two tenants, blocks of 10', () => tenantTests(kind, db)),
  );
}

function tenantTests(kind: 'postgres' | 'mysql', db: TestDatabase): void {
  {
    let client: SqlClient;
    const tenants: string[] = [];
    const q = (name: string) => (kind === 'postgres' ? `"${name}"` : `\`${name}\``);
    beforeAll(async () => {
      client = await connect(db.url);
    });
    afterAll(async () => {
      for (const t of tenants) await client.query(`drop schema ${q(t)}${kind === 'postgres' ? ' cascade' : ''}`);
      await client.close();
    });

    /** Two (or more) tenants, each with its own copy of a table named `table` (random: MariaDB's catalog is the server's). */
    const makeTenants = async (table: string, count = 2): Promise<string[]> => {
      const made: string[] = [];
      for (let i = 0; i < count; i++) made.push(await addTenant(table));
      return made;
    };
    const addTenant = async (table: string): Promise<string> => {
      const tenant = randomName('tenant');
      await client.query(`create schema ${q(tenant)}`);
      tenants.push(tenant);
      await client.query(`create table ${q(tenant)}.${q(table)} (id bigint primary key)`);
      return tenant;
    };
    const save = (tenant: string, table: string, key: number) =>
      client.query(`insert into ${q(tenant)}.${q(table)} (id) values (${key})`);
    const keysOf = async (tenant: string, table: string): Promise<Set<number>> => {
      const { rows } = await client.query<{ id: unknown }>(`select id from ${q(tenant)}.${q(table)}`);
      return new Set(rows.map((r) => Number(r.id)));
    };
    const generator = (
      source: Kind,
      storedKeys: StoredKeyColumn[],
      more: { schema?: string; onStoreBehind?: 'error' | 'lift'; prefetchAt?: number } = {},
    ) => createHiLo({ client, source, blockSize: 10, prefetchAt: false, adaptive: false, storedKeys, ...more });
    /** The store set back to its start, as a restore or reset would leave it. */
    const setBack = async (source: Kind, segment: string, schema?: string) => {
      const at = schema === undefined ? '' : `${q(schema)}.`;
      await client.query(
        source === 'sequence'
          ? `alter sequence ${at}${q(`${segment}_hilo_seq`)} restart with 1`
          : `update ${at}${q('hilo_segments')} set next_value = 1 where segment = '${segment}'`,
      );
    };
    /** 60 saves alternating over the tenants; every key new to every tenant's table. */
    const sixtySaves = async (
      hilo: { next(s: string): Promise<number> },
      segment: string,
      table: string,
      ts: string[],
    ) => {
      const keys: number[] = [];
      for (let i = 0; i < 60; i++) {
        const key = await hilo.next(segment);
        await save(ts[i % ts.length]!, table, key);
        keys.push(key);
      }
      expect(new Set(keys).size).toBe(60);
      return keys;
    };
    /** Keys drawn by a new process: none of them is held by any tenant's table. */
    const expectNoneHeld = async (keys: number[], table: string, ts: string[]) => {
      for (const t of ts) {
        const held = await keysOf(t, table);
        expect(keys.filter((k) => held.has(k))).toEqual([]);
      }
    };
    const sources: Kind[] = kind === 'postgres' ? ['sequence', 'table'] : ['sequence', 'table'];

    it("reads every tenant's stored keys in one statement, and each alone once a tenant's table went missing", async () => {
      const table = randomName('many');
      const ts = await makeTenants(table, 5);
      for (const [i, t] of ts.entries()) await save(t, table, 100 + i);
      const statements: string[] = [];
      const watched: SqlClient = {
        ...client,
        query: <Row>(sql: string, params?: readonly unknown[]) => {
          statements.push(sql);
          return client.query<Row>(sql, params);
        },
      };
      const keys = sqlStoredKeys(watched, [{ segment: table, table, column: 'id', tenants: ts }], {
        missingTables: 'ignore',
      });
      const signal = new AbortController().signal;
      const probes = () => statements.splice(0).filter((sql) => /\bmax\(/.test(sql));
      expect(await keys.largest(table, signal)).toMatchObject({ key: 104n, table: `${ts[4]}.${table}` });
      probes();
      // a block: the five tenants' range probes, one statement
      expect(await keys.within(table, { first: 101n, last: 103n }, signal)).toMatchObject({
        key: 103n,
        table: `${ts[3]}.${table}`,
      });
      const together = probes();
      expect(together).toHaveLength(1);
      expect(together[0]).toMatch(/union all/);
      // a tenant's table gone: the statement fails, and each tenant is read alone, as before
      await client.query(`drop table ${q(ts[3]!)}.${q(table)}`);
      expect(await keys.within(table, { first: 101n, last: 103n }, signal)).toMatchObject({
        key: 102n,
        table: `${ts[2]}.${table}`,
      });
      expect(probes()).toHaveLength(1 + ts.length);
    });

    describe.each(sources)('%s source', (source) => {
      it("tenants: '*' checks every tenant: a shared store set back is refused; the floor the error names lifts above all", async () => {
        const table = randomName('orders');
        const segment = table;
        const ts = await makeTenants(table);
        const columns = [{ segment, table, column: 'id', tenants: '*' as const }];
        const first = generator(source, columns);
        try {
          await sixtySaves(first, segment, table, ts);
        } finally {
          await first.close();
        }
        await setBack(source, segment);
        const second = generator(source, columns);
        try {
          const refused = await second.next(segment).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(refused).toBeInstanceOf(HiLoStoreBehindError);
          const message = (refused as Error).message;
          // the table named with its tenant, and a fix that covers every tenant
          expect(ts.some((t) => message.includes(`${t}.${table}`))).toBe(true);
          expect(message).toContain(`--from *.${table}.id`);
        } finally {
          await second.close();
        }
        // the suggested fix, as `hilo floor --from '*.TABLE.id'` runs it
        await raiseFloor(client, { segment, table, column: 'id', tenants: '*', source });
        const third = generator(source, columns);
        try {
          const keys: number[] = [];
          for (let i = 0; i < 25; i++) keys.push(await third.next(segment));
          await expectNoneHeld(keys, table, ts);
        } finally {
          await third.close();
        }
      });

      it("with onStoreBehind: 'lift', a new process in a set-back shared store lifts above every tenant's keys", async () => {
        const table = randomName('orders');
        const segment = table;
        const ts = await makeTenants(table);
        const columns = [{ segment, table, column: 'id', tenants: '*' as const }];
        const first = generator(source, columns);
        try {
          await sixtySaves(first, segment, table, ts);
        } finally {
          await first.close();
        }
        await setBack(source, segment);
        const lifted = generator(source, columns, { onStoreBehind: 'lift' });
        const warnings: string[] = [];
        const onWarning = (w: Error & { code?: string }) =>
          void (w.code === 'HILO_FLOOR_LIFTED' && warnings.push(w.message));
        process.on('warning', onWarning);
        try {
          const keys: number[] = [];
          for (let i = 0; i < 25; i++) keys.push(await lifted.next(segment));
          await expectNoneHeld(keys, table, ts);
          expect(Math.min(...keys)).toBeGreaterThan(60);
        } finally {
          process.off('warning', onWarning);
          await lifted.close();
        }
      });

      it("a shared store checking one tenant's table is refused at start, naming the tables; each fix it names is safe", async () => {
        const table = randomName('orders');
        const segment = table;
        const [a, b] = (await makeTenants(table)) as [string, string];
        // tenant b's rows, as its own process left them
        for (let k = 1; k <= 30; k++) await save(b, table, k);
        const one = generator(source, [{ segment, table, column: 'id', schema: a }]);
        try {
          const refused = await one.next(segment).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(refused).toBeInstanceOf(HiLoConfigurationError);
          const message = (refused as Error).message;
          expect(message).toContain(`${a}.${table}`);
          expect(message).toContain(`${b}.${table}`);
          expect(message).toContain("tenants: '*'");
          expect(message).toContain('`schema`');
        } finally {
          await one.close();
        }
        // fix 1: the tenant's own store, beside its table
        const own = generator(source, [{ segment, table, column: 'id', schema: a }], { schema: a });
        try {
          const keys: number[] = [];
          for (let i = 0; i < 15; i++) keys.push(await own.next(segment));
          for (const k of keys) await save(a, table, k);
          expect(new Set(keys).size).toBe(15);
        } finally {
          await own.close();
        }
        await setBack(source, segment, a);
        const ownAgain = generator(source, [{ segment, table, column: 'id', schema: a }], {
          schema: a,
          onStoreBehind: 'lift',
        });
        try {
          const keys: number[] = [];
          for (let i = 0; i < 15; i++) keys.push(await ownAgain.next(segment));
          await expectNoneHeld(keys, table, [a]);
        } finally {
          await ownAgain.close();
        }
        // fix 2: every tenant checked
        const every = generator(source, [{ segment, table, column: 'id', tenants: '*' }]);
        try {
          const keys: number[] = [];
          for (let i = 0; i < 15; i++) keys.push(await every.next(segment));
          await expectNoneHeld(keys, table, [a, b]);
        } finally {
          await every.close();
        }
      });

      it('a tenant created while the application runs is checked from the next block on', async () => {
        const table = randomName('orders');
        const segment = table;
        const ts = await makeTenants(table);
        const hilo = generator(source, [{ segment, table, column: 'id', tenants: '*' }]);
        try {
          const keys: number[] = [];
          for (let i = 0; i < 10; i++) keys.push(await hilo.next(segment));
          // a tenant restored from elsewhere, holding a key of the next block
          const late = await addTenant(table);
          await save(late, table, Math.max(...keys) + 5);
          await expect(hilo.next(segment)).rejects.toBeInstanceOf(HiLoStoreBehindError);
          ts.push(late);
        } finally {
          await hilo.close();
        }
      });

      it.each(['error', 'lift'] as const)(
        'a tenant created while the application runs, holding keys of the prefetched block: none handed out (%s)',
        async (onStoreBehind) => {
          const table = randomName('orders');
          const segment = table;
          const ts = await makeTenants(table);
          const hilo = generator(source, [{ segment, table, column: 'id', tenants: '*' }], {
            prefetchAt: 0.5,
            onStoreBehind,
          });
          // (jest's sandbox does not pass process warnings to `process.on('warning')`: read them where they are made)
          const warnings: string[] = [];
          const emitWarning = process.emitWarning;
          process.emitWarning = ((message: string | Error, options?: { code?: string }) => {
            if (options?.code === 'HILO_TENANT_KEYS_DROPPED') warnings.push(String(message));
          }) as typeof process.emitWarning;
          try {
            const keys: number[] = [];
            const draw = async () => {
              const key = await hilo.next(segment);
              await save(ts[keys.length % 2]!, table, key);
              keys.push(key);
            };
            for (let i = 0; i < 5; i++) await draw();
            // the 5th key asked for the next block: in hand, checked before the late tenant exists (waited for,
            // however long a loaded machine takes)
            while (hilo.stats()[segment]!.keysAvailable < 15) await new Promise((resolve) => setTimeout(resolve, 5));
            // a tenant restored from elsewhere: keys of the prefetched block and of the block after it
            const base = keys[0]! - 1;
            const late = await addTenant(table);
            ts.push(late);
            await save(late, table, base + 15);
            await save(late, table, base + 25);
            for (let i = 0; i < 5; i++) await draw();
            expect(keys).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((k) => base + k));
            if (onStoreBehind === 'error') {
              // the prefetched block is dropped before its first key; the next one holds 25: the store is behind
              const refused = await hilo.next(segment).then(
                () => undefined,
                (error: unknown) => error,
              );
              expect(refused).toBeInstanceOf(HiLoStoreBehindError);
              expect((refused as Error).message).toContain(`${late}.${table}`);
            } else {
              for (let i = 0; i < 10; i++) await draw();
              expect(Math.min(...keys.slice(10))).toBeGreaterThan(base + 25);
            }
            await expectNoneHeld(
              keys.filter((_, i) => i >= 10),
              table,
              [late],
            );
            expect(warnings.join('\n')).toContain(`${late}.${table}.id holds key ${base + 15}`);
          } finally {
            process.emitWarning = emitWarning;
            await hilo.close();
          }
        },
      );

      it("a floor from one tenant's table into a store other tenants share is refused, naming them", async () => {
        const table = randomName('orders');
        const segment = table;
        const [a, b] = (await makeTenants(table)) as [string, string];
        await save(a, table, 5);
        await save(b, table, 500);
        await expect(raiseFloor(client, { segment, table, column: 'id', schema: a, source })).rejects.toThrow(
          new RegExp(`${b}\\.${table}`),
        );
        // the first fix it names: a floor above every tenant's table, then 25 keys, none held by either tenant
        const floor = await raiseFloor(client, { segment, table, column: 'id', tenants: '*', source });
        expect(floor.maxKey).toBe(500n);
        const hilo = generator(source, [{ segment, table, column: 'id', tenants: '*' }]);
        try {
          const keys: number[] = [];
          for (let i = 0; i < 25; i++) keys.push(await hilo.next(segment));
          expect(Math.min(...keys)).toBeGreaterThan(500);
          await expectNoneHeld(keys, table, [a, b]);
        } finally {
          await hilo.close();
        }
      });

      it("the floor refusal's other fix: a connection pointed at the tenant's own store floors that store", async () => {
        const table = randomName('orders');
        const segment = table;
        const [a, b] = (await makeTenants(table)) as [string, string];
        for (let k = 1; k <= 30; k++) await save(a, table, k);
        await save(b, table, 500);
        // the connection's schema (search_path; MariaDB: its database) is the tenant's: its store lives there
        const url = new URL(db.url);
        if (kind === 'postgres') url.searchParams.set('options', `-c search_path=${a}`);
        else url.pathname = `/${a}`;
        const own = await connect(url.toString());
        try {
          const floor = await raiseFloor(own, { segment, table, column: 'id', source });
          expect(floor.maxKey).toBe(30n);
          // the tenant's process, on its own store beside its table (the default of an adapter bound to the tenant)
          const tenantProcess = () =>
            createHiLo({
              client: own,
              source,
              blockSize: 10,
              prefetchAt: false,
              adaptive: false,
              storedKeys: [{ segment, table, column: 'id' }],
            });
          const hilo = tenantProcess();
          try {
            const keys: number[] = [];
            for (let i = 0; i < 25; i++) keys.push(await hilo.next(segment));
            for (const key of keys) await save(a, table, key);
            expect(Math.min(...keys)).toBeGreaterThan(30);
            expect(new Set(keys).size).toBe(25);
          } finally {
            await hilo.close();
          }
          // its store is the tenant's: set back and started again, it is refused, never a key a's table holds
          await setBack(source, segment, a);
          const again = tenantProcess();
          try {
            await expect(again.next(segment)).rejects.toBeInstanceOf(HiLoStoreBehindError);
          } finally {
            await again.close();
          }
        } finally {
          await own.close();
        }
      });

      it("an adapter whose tables are all in one tenant's schema keeps its store there by default", async () => {
        const table = randomName('orders');
        const segment = table;
        const [a, b] = (await makeTenants(table)) as [string, string];
        const supplies = [a, b].map((t) =>
          openKeySupply(
            { client, source, blockSize: 10, prefetchAt: false, adaptive: false },
            { owner: 'test()', columns: [{ segment, table, column: 'id', schema: t }] },
          ),
        );
        try {
          for (let i = 0; i < 60; i++) {
            const t = i % 2;
            const key = Number(await (await supplies[t]!.generator()).next(segment));
            await save([a, b][t]!, table, key);
          }
        } finally {
          for (const s of supplies) await s.close();
        }
        // each tenant's store sits in its own schema (database)
        for (const t of [a, b]) {
          const found = await client.query(
            source === 'sequence'
              ? kind === 'postgres'
                ? `select 1 from pg_sequences where schemaname = '${t}' and sequencename = '${segment}_hilo_seq'`
                : `select 1 from information_schema.tables where table_schema = '${t}' and table_name = '${segment}_hilo_seq'`
              : `select 1 from ${q(t)}.${q('hilo_segments')} where segment = '${segment}'`,
          );
          expect(found.rows).toHaveLength(1);
        }
        // set back in tenant a: a new process there lifts above a's keys; b's store is b's own
        await setBack(source, segment, a);
        const again = openKeySupply(
          { client, source, blockSize: 10, prefetchAt: false, adaptive: false, onStoreBehind: 'lift' },
          { owner: 'test()', columns: [{ segment, table, column: 'id', schema: a }] },
        );
        try {
          const keys: number[] = [];
          for (let i = 0; i < 15; i++) keys.push(Number(await (await again.generator()).next(segment)));
          await expectNoneHeld(keys, table, [a]);
        } finally {
          await again.close();
        }
      });
    });
  }
}
