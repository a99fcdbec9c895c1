// Issue 54: Prisma on SQLite and libSQL (`@prisma/adapter-libsql`, `@prisma/adapter-better-sqlite3`). hilo-prisma
// cannot run there safely (Prisma's connection holds the file's one write lock through `$transaction`, and hilo's
// reservations cannot join it), so it is refused before the first key, however the database shows: the schema's
// provider, the client's driver adapter (metadata written by hand), a SQLite URL or client given to hilo.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as libsql from '@prisma/adapter-libsql';
import { HiLoConfigurationError, createHiLoGenerator, memorySource, sqliteClient } from 'hilo-core';
import { DatabaseSync } from 'node:sqlite';
import { hilo } from '../src/index.js';
import { PrismaClient } from './generated/sqlite/client.js';
import { hiloMetadata } from './generated/sqlite/hilo.js';

// Prisma 7 names the libSQL adapter factory PrismaLibSql; Prisma 6 named it PrismaLibSQL
const adapters = libsql as unknown as Record<string, typeof libsql.PrismaLibSql | undefined>;
const PrismaLibSql = (adapters.PrismaLibSql ?? adapters.PrismaLibSQL)!;

describe('hilo-prisma on SQLite and libSQL: refused before the first key, naming what to use', () => {
  let dir: string;
  let prisma: PrismaClient;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-prisma-sqlite-'));
    prisma = new PrismaClient({ adapter: new PrismaLibSql({ url: `file:${join(dir, 'app.db')}` }) });
    // a real client on a real file: Prisma itself works there
    await prisma.$executeRawUnsafe('create table notes (id integer primary key, text text not null)');
    await prisma.note.create({ data: { id: 1, text: 'without hilo' } });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal =
    /hilo-prisma does not run on SQLite or libSQL \((.+)\): .*hilo-drizzle, hilo-kysely, hilo-typeorm or hilo-mikro-orm/s;

  it('the generated metadata of a sqlite schema is refused at hilo()', () => {
    const generator = createHiLoGenerator({ source: memorySource() });
    const call = () => hilo({ metadata: hiloMetadata, generator });
    expect(call).toThrow(HiLoConfigurationError);
    expect(call).toThrow(/datasource provider is "sqlite"/);
    expect(call).toThrow(refusal);
  });

  it("metadata written by hand (no provider) is refused at $extends by the client's libSQL driver adapter", async () => {
    const { provider: _provider, ...byHand } = hiloMetadata;
    const generator = createHiLoGenerator({ source: memorySource() });
    expect(() => prisma.$extends(hilo({ metadata: byHand, generator }))).toThrow(/driver adapter is a SQLite one/);
    // nothing was keyed or written by hilo: the table holds the row written without it
    expect(await prisma.note.findMany()).toEqual([{ id: 1, text: 'without hilo' }]);
  });

  it('a SQLite or libSQL URL, or a SQLite client, given to hilo() is refused by name', () => {
    const { provider: _provider, ...byHand } = hiloMetadata;
    for (const url of [
      `file:${join(dir, 'app.db')}`,
      `sqlite:${join(dir, 'app.db')}`,
      'libsql://db.example.turso.io',
    ]) {
      const call = () => hilo({ metadata: byHand, url });
      expect(call).toThrow(HiLoConfigurationError);
      expect(call).toThrow(
        new RegExp(`^hilo\\(\\) does not run on SQLite \\(\`url\` starts with "${url.split(':')[0]}:"\\)`),
      );
      expect(call).toThrow(/write lock.*hilo-drizzle, hilo-kysely, hilo-typeorm or hilo-mikro-orm/s);
    }
    const db = new DatabaseSync(':memory:');
    try {
      expect(() => hilo({ metadata: byHand, client: sqliteClient(db) })).toThrow(/\(`client` is a SQLite client\)/);
    } finally {
      db.close();
    }
  });
});
