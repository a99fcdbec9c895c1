import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { hilo } from 'hilo-prisma';
import { PrismaClient } from './generated/prisma/client.js';
import { hiloMetadata } from './generated/prisma/hilo.js';

/**
 * The shop's Prisma client: PostgreSQL through the `pg` driver adapter, extended with hilo so keys come
 * from memory. hilo reserves its blocks on a connection pool of its own, opened from the same URL.
 * `statements` records every SQL statement the adapter's pool runs (counted at the driver, which costs
 * less than Prisma's query log), to show what a batch costs. `transactionTimeoutMs` raises Prisma's 5 s limit on a
 * transaction (the benchmark's, on a busy machine).
 */
export function openShop(url: string, options: { transactionTimeoutMs?: number } = {}) {
  const statements: string[] = [];
  const pool = new pg.Pool({ connectionString: url });
  pool.on('connect', (connection) => {
    const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
    (connection as { query: unknown }).query = (...args: unknown[]) => {
      const sql = args[0];
      statements.push(typeof sql === 'string' ? sql : String((sql as { text?: unknown }).text));
      return query(...args);
    };
  });
  const base = new PrismaClient({
    adapter: new PrismaPg(pool),
    ...(options.transactionTimeoutMs === undefined
      ? {}
      : { transactionOptions: { timeout: options.transactionTimeoutMs } }),
  });
  const prisma = base.$extends(hilo({ metadata: hiloMetadata, url }));
  return {
    prisma,
    /** The same client without hilo: what the benchmark's nested-create side uses, as an application without hilo would. */
    base,
    statements,
    async close() {
      await prisma.$hilo.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** The shop client's type, with hilo's `nextId()`/`reserveIds()` on every model. */
export type Shop = ReturnType<typeof openShop>['prisma'];

/** A suffix that keeps order numbers unique when the example runs again on the same database. */
export function runTag(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}
