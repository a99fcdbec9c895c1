// hilo's hi table is in no entity's metadata: MikroORM's schema diff (orm.schema.update(), migration:create)
// would drop it, and a recreated table could hand out keys that blocks held in memory still cover. The
// extension adds it to `schemaGenerator.skipTables` of the ORM it is registered on, and of no other. hilo's
// PostgreSQL sequences (the default source there) are outside what MikroORM's diff compares; a test holds it to that.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import { describeMysql, describePostgres, type TestDatabase } from '@hilo/testing';
import { HiLo, type HiLoOptions } from '../src/index.js';
import { Customer, defineEntities } from './fixtures/define-entities.js';
import { createSchema, updateSchema, updateSchemaSql } from './support/compat.js';
import { driverOptions, openOrm, type Kind } from './support/orm.js';

/** Keys, schema update, more keys: the table survives the update and no key comes twice. */
async function survivesSchemaUpdate(kind: Kind, url: string, hilo: HiLoOptions, table: string): Promise<void> {
  const { orm } = await openOrm(kind, url, defineEntities, { ...hilo, blockSize: 3, adaptive: false });
  try {
    await createSchema(orm);
    const em = orm.em.fork();
    const before = Array.from({ length: 5 }, (_, i) => em.create(Customer, { name: `before-${i}`, orders: [] }));
    await em.flush();
    expect(await updateSchemaSql(orm)).not.toMatch(new RegExp(`drop table[^;]*${table}`, 'i'));
    await updateSchema(orm);
    const rows = await orm.em
      .getConnection()
      .execute<Array<{ n: number | string }>>(`select count(*) as n from ${table}`);
    expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    // a second ORM (another process, after a deploy) draws from the same table: never a key the first one had
    const { orm: next } = await openOrm(kind, url, defineEntities, { ...hilo, blockSize: 3, adaptive: false });
    try {
      const other = next.em.fork();
      const after = Array.from({ length: 5 }, (_, i) => other.create(Customer, { name: `after-${i}`, orders: [] }));
      await other.flush();
      const taken = new Set(before.map((c) => c.id));
      expect(after.map((c) => c.id).filter((id) => taken.has(id))).toEqual([]);
    } finally {
      await next.close();
    }
  } finally {
    await orm.close();
  }
}

describeMysql('mikro-orm schema diff on mysql', (db: TestDatabase) => {
  it('leaves the default hi table (hilo_segments) alone in orm.schema.update()', () =>
    survivesSchemaUpdate('mysql', db.url, {}, 'hilo_segments'));
});

describePostgres('mikro-orm schema diff on postgres, sequence source', (db: TestDatabase) => {
  it("leaves hilo's sequences (the default source on PostgreSQL) alone in orm.schema.update()", async () => {
    const { orm } = await openOrm('postgres', db.url, defineEntities, { blockSize: 3, adaptive: false });
    try {
      await createSchema(orm);
      const em = orm.em.fork();
      em.create(Customer, { name: 'before', orders: [] });
      await em.flush();
      const sequences = async () =>
        (
          await orm.em
            .getConnection()
            .execute<Array<{ name: string }>>(
              "select sequencename as name from pg_sequences where sequencename like '%hilo%' order by 1",
            )
        ).map((row: { name: string }) => row.name);
      const existing = await sequences();
      expect(existing.length).toBeGreaterThan(0);
      expect(await updateSchemaSql(orm)).not.toMatch(/sequence/i);
      await updateSchema(orm);
      expect(await sequences()).toEqual(existing);
    } finally {
      await orm.close();
    }
  });
});

describePostgres('mikro-orm schema diff on postgres', (db: TestDatabase) => {
  it('leaves a hi table named by the `table` option alone in orm.schema.update()', () =>
    survivesSchemaUpdate('postgres', db.url, { source: 'table', table: 'shop_hi' }, 'shop_hi'));
});

describe('mikro-orm schema diff on a SQLite file', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-mikro-diff-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves hilo_segments alone in orm.schema.update()', () =>
    survivesSchemaUpdate('sqlite', join(dir, 'shop.db'), {}, 'hilo_segments'));

  it("keeps the user's own skipTables, and adds nothing to another ORM of the process", async () => {
    const file = join(dir, 'skip.db');
    const withHiLo = await MikroORM.init({
      ...driverOptions('sqlite', file),
      entities: defineEntities,
      schemaGenerator: { skipTables: ['legacy_audit'] },
      extensions: [HiLo],
    } as Options);
    const without = await MikroORM.init({ ...driverOptions('sqlite', file), entities: defineEntities } as Options);
    try {
      expect(withHiLo.config.get('schemaGenerator').skipTables).toEqual(['legacy_audit', 'hilo_segments']);
      expect(without.config.get('schemaGenerator').skipTables ?? []).toEqual([]);
    } finally {
      await HiLo.ready(withHiLo).catch(() => undefined);
      await withHiLo.close();
      await without.close();
    }
  });
});
