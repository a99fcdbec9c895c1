// Issue 46: a Prisma app refuses a hi store set back at start-up, before the first request, as TypeORM does at
// initialize(): `await prisma.$connect()` (Prisma's own start step, which the extension extends) and
// `await prisma.$hilo.warm()` reserve and check the first block of every segment against the stored rows.
import { randomName, type TestDatabase } from '@hilo/testing';
import { HiLoStoreBehindError } from 'hilo-core';
import { hilo } from '../src/index.js';
import { createBaseClient, createSchema, execute, metadataFor, type Kind } from './fixtures.js';

export function startUpSuite(kind: Kind, db: TestDatabase, source: 'sequence' | 'table'): void {
  beforeAll(() => createSchema(kind, db.url));

  it(`a store set back rejects at $connect() and $hilo.warm(), before any request (${source})`, async () => {
    const open = () => {
      const { prisma: base, queries } = createBaseClient(kind, db.url);
      return { base, queries, prisma: base.$extends(hilo({ metadata: metadataFor(kind), url: db.url, source })) };
    };
    const first = open();
    try {
      await first.prisma.$connect();
      for (let i = 0; i < 3; i++) await first.prisma.customer.create({ data: { name: randomName('c') } });
    } finally {
      await first.prisma.$hilo.close();
      await first.base.$disconnect();
    }
    // a restore: rows the store never handed out lie above it
    await execute(kind, db.url, [`insert into customers (id, name) values (900000, 'restored')`]);

    const app = open();
    try {
      const refused = app.prisma.$connect();
      await expect(refused).rejects.toThrow(HiLoStoreBehindError);
      await expect(refused).rejects.toThrow(/segment "customers".*already holds key 900000.*hilo floor/s);
      await expect(app.prisma.$hilo.warm()).rejects.toThrow(HiLoStoreBehindError);
      // refused before the app did anything: no row was written
      expect(app.queries.filter((q) => /^\s*insert/i.test(q))).toEqual([]);
    } finally {
      await app.prisma.$hilo.close();
      await app.base.$disconnect();
    }
    // a store ahead of its rows connects as before
    await execute(kind, db.url, [`delete from customers where id = 900000`]);
    const fine = open();
    try {
      await expect(fine.prisma.$connect()).resolves.toBeUndefined();
    } finally {
      await fine.prisma.$hilo.close();
      await fine.base.$disconnect();
    }
  });
}
