// Interop presets without a server: Hibernate's optimizer formulas and the configuration errors raised at
// creation. The concurrent tests against simulated clients are presets.postgres.test.ts / presets.mysql.test.ts.
import { DatabaseSync } from 'node:sqlite';
import { HiLoConfigurationError } from '../src/errors.js';
import { efCorePreset } from '../src/presets/efcore.js';
import { hibernateBlock, hibernateSequencePreset, hibernateTablePreset } from '../src/presets/hibernate.js';
import { martenPreset } from '../src/presets/marten.js';
import { nhibernatePreset } from '../src/presets/nhibernate.js';
import { sqliteClient } from '../src/dialects/sqlite/client.js';

describe('presets: Hibernate optimizer formulas (org.hibernate.id.enhanced)', () => {
  it('pooled: hilo claims v − n + 1 … v − 1, disjoint from Hibernate 3.6 (v − n … v − 1) and 5+ (v − n + 1 … v)', () => {
    expect(hibernateBlock('pooled', 101n, 50n, 1n)).toEqual({ first: 52n, last: 100n });
    // neither Hibernate 3.6's block for 101 (51…100) minus ours nor 5+'s (52…101) may hold a key of ours it also uses
    const ours = hibernateBlock('pooled', 101n, 50n, 1n)!;
    expect(ours.first > 51n && ours.last < 101n).toBe(true);
    // the initial value stands for no key, so nothing below it or equal to it is claimed
    expect(hibernateBlock('pooled', 1n, 50n, 1n)).toBeUndefined();
    expect(hibernateBlock('pooled', 1000n, 10n, 1000n)).toBeUndefined();
    expect(hibernateBlock('pooled', 1010n, 10n, 1000n)).toEqual({ first: 1001n, last: 1009n });
  });

  it('pooled-lo: v is the first key of v … v + n − 1, keys below 1 skipped', () => {
    expect(hibernateBlock('pooled-lo', 51n, 50n, 1n)).toEqual({ first: 51n, last: 100n });
    expect(hibernateBlock('pooled-lo', -5n, 10n, 1n)).toEqual({ first: 1n, last: 4n });
  });

  it('hilo: v stands for (v − 1)·n + 1 … v·n; values below 1 stand for nothing', () => {
    expect(hibernateBlock('hilo', 1n, 50n, 1n)).toEqual({ first: 1n, last: 50n });
    expect(hibernateBlock('hilo', 3n, 50n, 1n)).toEqual({ first: 101n, last: 150n });
    expect(hibernateBlock('hilo', 0n, 50n, 1n)).toBeUndefined();
  });

  it('legacy-hilo: v stands for v·(n + 1) … v·(n + 1) + n, key 0 skipped', () => {
    expect(hibernateBlock('legacy-hilo', 0n, 10n, 1n)).toEqual({ first: 1n, last: 10n });
    expect(hibernateBlock('legacy-hilo', 2n, 10n, 1n)).toEqual({ first: 22n, last: 32n });
  });
});

describe('presets: configuration errors at creation', () => {
  const sqlite = () => sqliteClient(new DatabaseSync(':memory:'));

  it('every preset refuses SQLite with a HiLoConfigurationError naming the databases it supports', async () => {
    const client = sqlite();
    try {
      expect(() => hibernateSequencePreset(client)).toThrow(/supports PostgreSQL or MariaDB only.*SQLite/);
      expect(() => hibernateTablePreset(client)).toThrow(/supports PostgreSQL or MariaDB only.*SQLite/);
      expect(() => nhibernatePreset(client)).toThrow(/supports PostgreSQL or MariaDB only.*SQLite/);
      expect(() => efCorePreset(client)).toThrow(/supports PostgreSQL only.*SQLite/);
      expect(() => martenPreset(client)).toThrow(/supports PostgreSQL only.*SQLite/);
      expect(() => martenPreset(client)).toThrow(HiLoConfigurationError);
    } finally {
      await client.close();
    }
  });

  it('names a bad optimizer, increment or a non-default initialValue the preset would create wrongly', async () => {
    // options are checked before the database, so these errors come first whatever the client
    const client = sqlite();
    try {
      expect(() => hibernateSequencePreset(client, { optimizer: 'none' as never })).toThrow(
        /`optimizer` to be "pooled", "pooled-lo", "hilo", "legacy-hilo"/,
      );
      expect(() => hibernateTablePreset(client, { incrementSize: 0 })).toThrow(
        /`incrementSize` to be an integer ≥ 1, got 0/,
      );
      expect(() => hibernateTablePreset(client, { storeLastUsed: 'yes' as never })).toThrow(
        /`storeLastUsed` to be a boolean/,
      );
      expect(() => hibernateSequencePreset(client, { incrementSize: 1 })).toThrow(
        /`optimizer: 'pooled'` with `incrementSize: 1`.*`optimizer: 'pooled-lo'`/,
      );
      expect(() => hibernateSequencePreset(client, { initialValue: 1000 })).toThrow(
        /`initialValue: 1000` needs `create: false`.*start with 1000 increment by 50/,
      );
      expect(() => hibernateSequencePreset(client, { initialValue: 1000, create: false })).toThrow(
        /supports PostgreSQL or MariaDB only/,
      );
      expect(() => nhibernatePreset(client, { maxLo: -1 })).toThrow(/`maxLo` to be an integer ≥ 0/);
      expect(() => martenPreset(client, { maxLo: 0 })).toThrow(/`maxLo` to be an integer ≥ 1/);
    } finally {
      await client.close();
    }
  });
});
