// Issue 46 ("an adapter never silently turns the check off"): Drizzle learns where a segment's keys are stored only
// from the tables passed to warm(), ensure() or nextId(). A segment handing out keys with no such table is not
// verified, and hilo now says so once per segment (HILO_STORED_KEYS_UNCHECKED) instead of staying silent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';
import { hiloDrizzle, type HiLoDrizzle } from 'hilo-drizzle';

const dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-unchecked-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function freshFile(): string {
  const file = join(dir, `shop-${++files}.db`);
  const db = new Database(file);
  db.exec('create table orders (id integer primary key, total integer not null)');
  db.close();
  return file;
}

const ordersOf = (hilo: HiLoDrizzle) =>
  sqliteTable('orders', { id: integer('id').primaryKey().$defaultFn(hilo.key('orders')), total: integer('total') });

/** The process warnings `work` emitted, as code and message; none reaches the process. */
async function warningsOf(work: () => Promise<void>): Promise<{ code: string; message: string }[]> {
  const original = process.emitWarning;
  const seen: { code: string; message: string }[] = [];
  process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
    seen.push({ code: options?.code ?? 'none', message: String(warning) });
  }) as typeof process.emitWarning;
  try {
    await work();
    return seen;
  } finally {
    process.emitWarning = original;
  }
}

describe('a segment no table was given for', () => {
  it('is said once when it hands out keys unchecked, naming warm([...])', async () => {
    const hilo = hiloDrizzle({ url: `sqlite:${freshFile()}`, blockSize: 10 });
    try {
      const warnings = await warningsOf(async () => {
        ordersOf(hilo);
        await hilo.warm(); // segments only: hilo does not learn the table
        const key = hilo.key('orders');
        key();
        key();
        await key.next();
      });
      const unchecked = warnings.filter((w) => w.code === 'HILO_STORED_KEYS_UNCHECKED');
      expect(unchecked).toHaveLength(1);
      expect(unchecked[0]!.message).toMatch(/segment "orders".*hilo\.warm\(\[\.\.\.\]\)/s);
    } finally {
      await hilo.close();
    }
  });

  it('is not said when the table was given, nor with verifyBlocks: false', async () => {
    const given = hiloDrizzle({ url: `sqlite:${freshFile()}`, blockSize: 10 });
    const off = hiloDrizzle({ url: `sqlite:${freshFile()}`, blockSize: 10, verifyBlocks: false });
    try {
      const codes = await warningsOf(async () => {
        await given.warm([ordersOf(given)]);
        given.key('orders')();
        ordersOf(off);
        await off.warm();
        off.key('orders')();
      });
      expect(codes.map((w) => w.code)).not.toContain('HILO_STORED_KEYS_UNCHECKED');
    } finally {
      await given.close();
      await off.close();
    }
  });
});
