// Issue 46, items 3 and 5: verified blocks for every key type. Keys written as decimal text (Kysely's
// `as: 'string'`) are compared as numbers, not as text ('9' > '10'); formatted ids (`nextFullId()`, `seg/10-A`)
// are read back as their number; keys near 2^63 − 1 stay exact; and a probed column that no index leads with is
// named at its first check in one HILO_PROBE_SCANS warning with the CREATE INDEX that fixes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDatabase, randomName } from '@hilo/testing';
import {
  HiLoConfigurationError,
  HiLoStoreBehindError,
  connect,
  createHiLo,
  createHiLoGenerator,
  memorySource,
  sqlStoredKeys,
  type HiLoGenerator,
  type SqlClient,
  type StoredKeyKind,
} from 'hilo-core';

/** Replaces process.emitWarning with one that says nothing; the returned function puts it back. */
function silenceWarnings(): () => void {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined;
  return () => {
    process.emitWarning = emitWarning;
  };
}

type Database = 'postgres' | 'mysql' | 'sqlite';

const BIG = 9_223_372_036_854_775_806n; // 2^63 − 2

/** Runs the key-type suite on one database. */
export function runStoredKeyKindsSuite(database: Database): void {
  const title = `${database}: verified blocks for every key type`;
  const body = (url: () => string) => {
    let client: SqlClient;
    const text = database === 'mysql' ? 'varchar(40)' : 'text';
    const textKey = database === 'mysql' ? 'varchar(40) primary key' : 'text primary key';
    beforeAll(async () => {
      client = await connect(url());
    });
    afterAll(async () => {
      await client.close();
    });

    /** A fresh segment and its key table, created with `columns`. */
    async function fresh(columns: string): Promise<{ segment: string; table: string }> {
      const segment = randomName('k');
      const table = `${segment}_rows`;
      await client.query(`create table ${table} (${columns})`);
      return { segment, table };
    }

    async function store(table: string, keys: readonly (string | bigint)[]): Promise<void> {
      for (let i = 0; i < keys.length; i += 500) {
        const values = keys
          .slice(i, i + 500)
          .map((k) => (typeof k === 'bigint' ? `(${k})` : `('${k}')`))
          .join(', ');
        await client.query(`insert into ${table} (id) values ${values}`);
      }
    }

    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

    /** A generator over a memory store starting at `start`, verified against `table.id` through sqlStoredKeys. */
    function verified(
      segment: string,
      table: string,
      kind: StoredKeyKind | undefined,
      start: bigint,
      more: { onStoreBehind?: 'error' | 'lift'; blockSize?: number } = {},
    ): HiLoGenerator<bigint> {
      return createHiLoGenerator({
        source: memorySource({ start }),
        keyType: 'bigint',
        blockSize: more.blockSize ?? 10,
        adaptive: false,
        prefetchAt: false,
        retries: 0,
        storedKeys: sqlStoredKeys(client, [{ segment, table, column: 'id', ...(kind === undefined ? {} : { kind }) }]),
        ...(more.onStoreBehind === undefined ? {} : { onStoreBehind: more.onStoreBehind }),
      });
    }

    async function refusal(hilo: HiLoGenerator<bigint>, segment: string): Promise<HiLoStoreBehindError> {
      const error: unknown = await hilo.next(segment).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HiLoStoreBehindError);
      return error as HiLoStoreBehindError;
    }

    it('string keys crossing 9→10, 99→100 and 999→1000 raise no false alarm', async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      const hilo = verified(segment, table, 'string', 1n);
      try {
        // one block at a time, stored before the next is reserved and probed
        for (let block = 0; block < 101; block++) {
          const keys: bigint[] = [];
          for (let i = 0; i < 10; i++) keys.push(await hilo.next(segment));
          await store(table, keys.map(String));
        }
        expect(await hilo.next(segment)).toBe(1011n);
      } finally {
        await hilo.close();
      }
    }, 60_000);

    it('a store set back below string keys is refused naming the largest (1050, not the text largest 999)', async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      await store(table, range(1, 1050));
      const hilo = verified(segment, table, 'string', 1000n);
      try {
        const error = await refusal(hilo, segment);
        expect(error.storedKey).toBe(1050n);
      } finally {
        await hilo.close();
      }
      const lifted = verified(segment, table, 'string', 1000n, { onStoreBehind: 'lift' });
      const restore = silenceWarnings(); // the lift's HILO_FLOOR_LIFTED
      try {
        expect(await lifted.next(segment)).toBe(1051n);
      } finally {
        restore();
        await lifted.close();
      }
    });

    it('a column of text type is compared as numbers even when its kind is not said', async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      await store(table, ['9', '10', '11', '100']);
      const hilo = verified(segment, table, undefined, 10n);
      try {
        expect((await refusal(hilo, segment)).storedKey).toBe(100n);
      } finally {
        await hilo.close();
      }
    });

    // Issue 52, item 4: MariaDB/MySQL and SQLite bind `?` by position; the text-range probe's parameters once came
    // in another order than its placeholders, so a running process never found a row in its next block there
    it('a running process finds a row stored into its next block, for text keys and formatted ids as for bigint', async () => {
      const cases: { columns: string; kind: StoredKeyKind | undefined; row: (segment: string) => string | bigint }[] = [
        { columns: 'id bigint primary key', kind: undefined, row: () => 105n },
        { columns: `id ${textKey}`, kind: 'string', row: () => '105' },
        { columns: `id ${textKey}`, kind: 'format', row: (segment) => `${segment}/105-B` },
      ];
      for (const { columns, kind, row } of cases) {
        const { segment, table } = await fresh(columns);
        const hilo = verified(segment, table, kind, 1n, { blockSize: 100 });
        try {
          // the first block, 1…100, handed out and stored as the process writes its keys
          const keys: bigint[] = [];
          for (let i = 0; i < 100; i++) keys.push(await hilo.next(segment));
          await store(
            table,
            keys.map((k) => (kind === 'format' ? `${segment}/${k}-A` : kind === 'string' ? String(k) : k)),
          );
          // a peer stores 105 into the next block, 101…200, before the process reserves it
          await store(table, [row(segment)]);
          const error = await refusal(hilo, segment);
          expect([kind, error.storedKey, error.block.first]).toEqual([kind, 105n, 101n]);
        } finally {
          await hilo.close();
        }
      }
    }, 60_000);

    it('within and counts find the keys of a block spanning 95…104 in a text column (one probe per digit count)', async () => {
      for (const kind of ['string', 'format'] as const) {
        const { segment, table } = await fresh(`id ${textKey}`);
        const id = (n: number) => (kind === 'format' ? `${segment}/${n}-A` : String(n));
        await store(table, [94, 97, 103, 105, 1000].map(id));
        const keys = sqlStoredKeys(client, [{ segment, table, column: 'id', kind }]);
        const signal = new AbortController().signal;
        const block = { first: 95n, last: 104n };
        expect((await keys.within(segment, block, signal))?.key).toBe(103n);
        expect((await keys.counts!(segment, block, signal)).map((c) => c.keys)).toEqual([2n]);
        expect(await keys.within(segment, { first: 106n, last: 999n }, signal)).toBeUndefined();
      }
    });

    it('string keys near 2^63 − 1 stay exact (the text largest would be "99")', async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      await store(table, ['99', String(BIG - 806n), String(BIG)]);
      const hilo = verified(segment, table, 'string', BIG - 806n);
      try {
        expect((await refusal(hilo, segment)).storedKey).toBe(BIG);
      } finally {
        await hilo.close();
      }
    });

    it('bigint keys near 2^63 − 1 stay exact, also with kind "string" on a bigint column', async () => {
      const { segment, table } = await fresh('id bigint primary key');
      await store(table, [BIG - 6n, BIG]);
      const hilo = verified(segment, table, undefined, BIG - 10n, { blockSize: 5 });
      try {
        expect((await refusal(hilo, segment)).storedKey).toBe(BIG);
      } finally {
        await hilo.close();
      }
      // a string kind on a bigint column (Kysely's as: 'string' over a bigint key) is a numeric probe
      const within = verified(segment, table, 'string', BIG - 9n, { blockSize: 5 });
      try {
        expect((await refusal(within, segment)).storedKey).toBe(BIG);
      } finally {
        await within.close();
      }
    });

    it('formatted ids are read back as their number (refused, or lifted); other rows are ignored', async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      const ids = [1, 2, 9, 10, 11].map((n) => `${segment}/${n}-A`);
      await store(table, [
        ...ids,
        `${segment}/12-B`,
        `${segment}/8`,
        'other/99999-A',
        `${segment}/0099`,
        `${segment}/x`,
      ]);
      const hilo = verified(segment, table, 'format', 5n);
      try {
        expect((await refusal(hilo, segment)).storedKey).toBe(12n);
      } finally {
        await hilo.close();
      }
      const after = verified(segment, table, 'format', 13n);
      try {
        expect(await after.next(segment)).toBe(13n);
      } finally {
        await after.close();
      }
      const lifted = verified(segment, table, 'format', 5n, { onStoreBehind: 'lift' });
      const restore = silenceWarnings(); // the lift's HILO_FLOOR_LIFTED
      try {
        expect(await lifted.next(segment)).toBeGreaterThan(12n);
      } finally {
        restore();
        await lifted.close();
      }
    });

    it("createHiLo takes a formatted id's prefix from idFormat and creates its store above the ids", async () => {
      const { segment, table } = await fresh(`id ${textKey}`);
      await store(table, [`${segment.toUpperCase()}?41-B`, `${segment.toUpperCase()}?7-A`]);
      const hiTable = `${segment}_hi`;
      const hilo = createHiLo({
        client,
        source: 'table',
        table: hiTable,
        blockSize: 10,
        idFormat: { prefix: (s) => s.toUpperCase(), separator: '?', nodeTag: 'A' }, // a '?' in SQL text is no placeholder
        storedKeys: [{ segment, table, column: 'id', kind: 'format' }],
      });
      try {
        expect(await hilo.nextFullId(segment)).toBe(`${segment.toUpperCase()}?42-A`);
      } finally {
        await hilo.close();
      }
    });

    // Issue 52, item 3: a declared column whose rows the probe cannot read is never a silent pass
    describe('a column the probe cannot read', () => {
      /** Runs `work` with HILO_STORED_KEYS_UNREADABLE warnings collected (and others silenced). */
      async function warnings(work: () => Promise<void>): Promise<string[]> {
        const said: string[] = [];
        const emitWarning = process.emitWarning;
        process.emitWarning = ((message: string | Error, options?: { code?: string }) => {
          if (options?.code === 'HILO_STORED_KEYS_UNREADABLE') said.push(String(message));
        }) as typeof process.emitWarning;
        try {
          await work();
        } finally {
          process.emitWarning = emitWarning;
        }
        return said;
      }

      it('RavenDB-style ids under a set-back hi row: nextFullId reads them as formatted ids, next() is refused', async () => {
        const { segment, table } = await fresh(`id ${textKey}`);
        const hi = `${segment}_hi`;
        const open = (more: { onUnreadableKeys?: 'warn' } = {}) =>
          createHiLo({
            client,
            source: 'table',
            table: hi,
            blockSize: 10,
            adaptive: false,
            idFormat: { nodeTag: 'A' },
            storedKeys: [{ segment, table, column: 'id' }], // no kind: 'format'
            ...more,
          });
        const first = open();
        const ids: string[] = [];
        try {
          for (let i = 0; i < 30; i++) ids.push(await first.nextFullId(segment));
        } finally {
          await first.close();
        }
        expect(ids[29]).toBe(`${segment}/30-A`);
        await store(table, ids);
        await client.query(`update ${hi} set next_value = 1 where segment = '${segment}'`);

        // the format is known from the nextFullId() call: the stored ids are read with it, none is handed out again
        const again = open();
        try {
          const error: unknown = await again.nextFullId(segment).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(HiLoStoreBehindError);
          expect((error as HiLoStoreBehindError).storedKey).toBe(30n);
        } finally {
          await again.close();
        }
        // next() says nothing of a format: the column holds rows, none of them a decimal key, so it is refused
        const plain = open();
        try {
          const error: unknown = await plain.next(segment).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(HiLoConfigurationError);
          const message = (error as Error).message;
          expect(message).toContain(`${table}.id`);
          expect(message).toContain("kind: 'format'");
          expect(message).toContain("onUnreadableKeys: 'warn'");
        } finally {
          await plain.close();
        }
        // with consent: one warning, and the column counts as holding no keys
        const consenting = open({ onUnreadableKeys: 'warn' });
        const said = await warnings(async () => {
          try {
            // the refused reservation above took 1…10: the hi row is at 11
            expect(await consenting.next(segment)).toBe(11);
            expect(await consenting.next(segment)).toBe(12);
          } finally {
            await consenting.close();
          }
        });
        expect(said).toHaveLength(1);
        expect(said[0]).toContain(`${table}.id`);
      });

      it('nextFullId on a column declared "string" or "number" is refused, naming kind: "format"', async () => {
        const { segment, table } = await fresh(`id ${textKey}`);
        for (const kind of ['string', 'number'] as const) {
          const hilo = verified(segment, table, kind, 1n);
          try {
            const error: unknown = await hilo.nextFullId(segment).catch((e: unknown) => e);
            expect(error).toBeInstanceOf(HiLoConfigurationError);
            expect((error as Error).message).toContain("kind: 'format'");
          } finally {
            await hilo.close();
          }
        }
        // a numeric column without a kind stays a numeric probe under nextFullId()
        const numeric = await fresh('id bigint primary key');
        await store(numeric.table, [5n]);
        const hilo = verified(numeric.segment, numeric.table, undefined, 1n);
        try {
          const error: unknown = await hilo.nextFullId(numeric.segment).catch((e: unknown) => e);
          expect((error as HiLoStoreBehindError).storedKey).toBe(5n);
        } finally {
          await hilo.close();
        }
      });

      it('formatted ids with another prefix than the declared one are refused, naming prefix', async () => {
        const { segment, table } = await fresh(`id ${textKey}`);
        await store(table, ['invoices/1-A', 'invoices/2-A']);
        const hilo = verified(segment, table, 'format', 1n);
        try {
          const error: unknown = await hilo.next(segment).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(HiLoConfigurationError);
          expect((error as Error).message).toContain('`prefix`');
          expect((error as Error).message).toContain('invoices/1-A');
        } finally {
          await hilo.close();
        }
      });

      it('a column where some rows read is checked against those; the others cannot equal a key hilo writes', async () => {
        const { segment, table } = await fresh(`id ${textKey}`);
        await store(table, ['0b4c8e1a-uuid', 'legacy-7', '7']);
        const hilo = verified(segment, table, 'string', 1n);
        try {
          expect((await refusal(hilo, segment)).storedKey).toBe(7n);
        } finally {
          await hilo.close();
        }
        const above = verified(segment, table, 'string', 8n);
        try {
          expect(await above.next(segment)).toBe(8n);
        } finally {
          await above.close();
        }
      });

      it('a table that fills with unreadable rows while a process runs is refused at its next block', async () => {
        const { segment, table } = await fresh(`id ${textKey}`);
        const hilo = verified(segment, table, 'string', 1n);
        try {
          for (let i = 0; i < 10; i++) await hilo.next(segment); // an empty table: nothing to read yet
          await store(table, [`${segment}/3-A`]);
          const error: unknown = await hilo.next(segment).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(HiLoConfigurationError);
        } finally {
          await hilo.close();
        }
      });
    });

    describe('a probe that would read the whole table', () => {
      async function warningsOf(table: string, segment: string, kind?: StoredKeyKind): Promise<string[]> {
        const said: string[] = [];
        const emitWarning = process.emitWarning;
        process.emitWarning = ((message: string | Error, options?: { code?: string }) => {
          if (options?.code === 'HILO_PROBE_SCANS') said.push(String(message));
        }) as typeof process.emitWarning;
        const hilo = verified(segment, table, kind, 1n);
        try {
          await hilo.next(segment);
          await hilo.next(segment);
        } finally {
          process.emitWarning = emitWarning;
          await hilo.close();
        }
        return said;
      }

      it('warns once for a column no index leads with, naming the CREATE INDEX that fixes it', async () => {
        const { segment, table } = await fresh(`id bigint not null, other ${text}`);
        const said = await warningsOf(table, segment);
        expect(said).toHaveLength(1);
        expect(said[0]).toContain(`${table}.id`);
        const statement = /(create index .*);$/.exec(said[0]!)?.[1];
        expect(statement).toBeDefined();
        await client.query(statement!);
        const other = await fresh(`id bigint not null`);
        await client.query(statement!.replaceAll(table, other.table));
        expect(await warningsOf(other.table, other.segment)).toEqual([]);
      });

      it('does not warn for a primary key, numeric or text, nor a text column with an index', async () => {
        const numeric = await fresh(database === 'sqlite' ? 'id integer primary key' : 'id bigint primary key');
        expect(await warningsOf(numeric.table, numeric.segment)).toEqual([]);
        const textual = await fresh(`id ${textKey}`);
        expect(await warningsOf(textual.table, textual.segment, 'string')).toEqual([]);
        const unique = await fresh(`id ${text} not null, unique (id)`);
        expect(await warningsOf(unique.table, unique.segment, 'string')).toEqual([]);
      });

      it('warns for a text key column without an index', async () => {
        const { segment, table } = await fresh(`id ${text}`);
        const said = await warningsOf(table, segment, 'string');
        expect(said).toHaveLength(1);
        expect(said[0]).toContain('create index');
      });

      if (database === 'postgres') {
        it('warns for a text column whose only index cannot serve a range (text_pattern_ops, another collation)', async () => {
          const pattern = await fresh('id text not null');
          await client.query(`create index on ${pattern.table} (id text_pattern_ops)`);
          expect(await warningsOf(pattern.table, pattern.segment, 'string')).toHaveLength(1);
          const collated = await fresh('id text collate "C" not null');
          await client.query(`create index on ${collated.table} (id collate "POSIX")`);
          expect(await warningsOf(collated.table, collated.segment, 'string')).toHaveLength(1);
        });
      }
    });
  };

  if (database === 'sqlite') {
    describe(title, () => {
      const folder = mkdtempSync(join(tmpdir(), 'hilo-key-kinds-'));
      afterAll(() => rmSync(folder, { recursive: true, force: true }));
      body(() => `sqlite:${join(folder, 'keys.db')}`);
    });
  } else {
    describeDatabase(database, title, (db) => body(() => db.url));
  }
}
