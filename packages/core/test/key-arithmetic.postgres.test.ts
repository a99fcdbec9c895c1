// Every source and preset must take its blocks through the one key-arithmetic module (src/engine/strategies.ts), so
// that a fix to a formula can never land in one copy only. The test watches `keyArithmetic` while each
// source and preset reserves keys from a real database, and checks that every key handed out lies in a
// block the module computed during that reservation.
import { DatabaseSync } from 'node:sqlite';
import { describePostgres } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import { sqliteClient } from '../src/dialects/sqlite/client.js';
import { efCorePreset } from '../src/presets/efcore.js';
import { hibernateSequencePreset, hibernateTablePreset } from '../src/presets/hibernate.js';
import { martenPreset } from '../src/presets/marten.js';
import { nhibernatePreset } from '../src/presets/nhibernate.js';
import { keyArithmetic } from '../src/engine/strategies.js';
import type { Block, HiSource } from '../src/engine/types.js';
import type { SqlClient } from '../src/sql/sql-client.js';

type Watched = 'blockFromValue' | 'blocksFromValues' | 'blocksFromValueRange';

/** Reserves `size` keys twice from `source`, recording what keyArithmetic computed meanwhile. */
async function watchReservations(
  source: HiSource,
  segment: string,
  size: number,
): Promise<{ handedOut: Block[]; computed: Block[] }> {
  const computed: Block[] = [];
  const watched = keyArithmetic as unknown as Record<Watched, (...args: unknown[]) => Block | Block[] | undefined>;
  const originals = { ...watched };
  for (const name of ['blockFromValue', 'blocksFromValues', 'blocksFromValueRange'] as Watched[]) {
    watched[name] = (...args: unknown[]) => {
      const result = originals[name](...args);
      if (Array.isArray(result)) computed.push(...result);
      else if (result !== undefined) computed.push(result);
      return result;
    };
  }
  try {
    const signal = new AbortController().signal;
    await source.prepare?.(segment, signal);
    const handedOut = [
      ...(await source.reserve(segment, { size, signal })),
      ...(await source.reserve(segment, { size, signal })),
    ];
    return { handedOut, computed };
  } finally {
    Object.assign(watched, originals);
  }
}

function expectComputedThere(result: { handedOut: Block[]; computed: Block[] }): void {
  expect(result.handedOut.length).toBeGreaterThan(0);
  expect(result.computed.length).toBeGreaterThan(0);
  for (const block of result.handedOut) {
    const covered = result.computed.some((c) => c.first <= block.first && block.last <= c.last);
    if (!covered)
      throw new Error(
        `block ${block.first}–${block.last} was not computed by keyArithmetic ` +
          `(computed: ${JSON.stringify(result.computed, (_, v) => (typeof v === 'bigint' ? `${v}` : v))})`,
      );
  }
}

describe('key arithmetic in one module: SQLite table sources', () => {
  for (const strategy of ['pooled-lo', 'range', 'hilo'] as const) {
    it(`tableSource({ strategy: '${strategy}' }) takes its blocks from keyArithmetic`, async () => {
      const client = sqliteClient(new DatabaseSync(':memory:'));
      expectComputedThere(await watchReservations(tableSource(client, { strategy, increment: 10 }), 'orders', 25));
    });
  }
});

describePostgres('key arithmetic in one module: PostgreSQL sources and presets', (db) => {
  let client: SqlClient & { close?: () => Promise<void> };
  beforeAll(async () => {
    client = await connect(db.url);
  });
  afterAll(async () => {
    await (client as { close(): Promise<void> }).close();
  });

  const cases: Array<[string, () => HiSource]> = [
    [
      "sequenceSource({ strategy: 'pooled-lo' })",
      () => sequenceSource(client, { strategy: 'pooled-lo', increment: 10, name: (s) => `${s}_plo_seq` }),
    ],
    [
      "sequenceSource({ strategy: 'pooled' })",
      () => sequenceSource(client, { strategy: 'pooled', increment: 10, name: (s) => `${s}_p_seq` }),
    ],
    [
      "sequenceSource({ strategy: 'hilo' })",
      () => sequenceSource(client, { strategy: 'hilo', increment: 10, name: (s) => `${s}_h_seq` }),
    ],
    ['tableSource (pooled-lo)', () => tableSource(client, { table: 'ka_segments', increment: 10 })],
    ['efCorePreset', () => efCorePreset(client, { incrementBy: 10 }).source],
    [
      "hibernateSequencePreset({ optimizer: 'pooled' })",
      () =>
        hibernateSequencePreset(client, { optimizer: 'pooled', incrementSize: 10, sequenceName: (s) => `${s}_hp_seq` })
          .source,
    ],
    [
      "hibernateSequencePreset({ optimizer: 'legacy-hilo' })",
      () =>
        hibernateSequencePreset(client, {
          optimizer: 'legacy-hilo',
          incrementSize: 10,
          sequenceName: (s) => `${s}_hl_seq`,
        }).source,
    ],
    [
      "hibernateTablePreset({ optimizer: 'hilo' })",
      () => hibernateTablePreset(client, { optimizer: 'hilo', incrementSize: 10 }).source,
    ],
    ['nhibernatePreset', () => nhibernatePreset(client, { maxLo: 9 }).source],
    ['martenPreset', () => martenPreset(client, { maxLo: 10 }).source],
  ];
  for (const [name, make] of cases) {
    it(`${name} takes its blocks from keyArithmetic`, async () => {
      expectComputedThere(await watchReservations(make(), 'orders', 25));
    });
  }
});
