import { PrismaPg } from '@prisma/adapter-pg';
import { hilo } from 'hilo-prisma';
import { PrismaClient } from './generated/prisma/client.js';
import { hiloMetadata } from './generated/prisma/hilo.js';

/**
 * The shop's Prisma client: PostgreSQL through the `pg` driver adapter, extended with hilo so keys come
 * from memory. hilo reserves its blocks on a connection pool of its own, opened from the same URL.
 * `statements` records every SQL statement the client sends, to show what a batch costs.
 */
export function openShop(url: string) {
  const statements: string[] = [];
  const base = new PrismaClient({
    adapter: new PrismaPg({ connectionString: url }),
    log: [{ emit: 'event', level: 'query' }],
  });
  base.$on('query', (event) => statements.push(event.query));
  const prisma = base.$extends(hilo({ metadata: hiloMetadata, url }));
  return {
    prisma,
    statements,
    async close() {
      await prisma.$hilo.close();
      await prisma.$disconnect();
    },
  };
}

/** The shop client's type, with hilo's `nextId()`/`reserveIds()` on every model. */
export type Shop = ReturnType<typeof openShop>['prisma'];

/** A suffix that keeps order numbers unique when the example runs again on the same database. */
export function runTag(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}
