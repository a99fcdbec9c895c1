import { describePostgres } from '@hilo/testing';
import { run } from '../src/main.js';

describePostgres('drizzle example', (db) => {
  it('knows every key before inserting and needs no more statements than identity keys', async () => {
    const lines: string[] = [];
    const summary = await run(db.url, (line) => lines.push(line));
    // 3 customers, 6 orders, 15 items
    expect(summary.keysBeforeFlush).toBe(24);
    // BEGIN, one INSERT per table, COMMIT
    expect(summary.statements).toBe(5);
    expect(summary.statements).toBeLessThanOrEqual(summary.identityStatements);
    expect(lines.join('\n')).toMatch(/transaction rolled back \(payment declined\)/);
    expect(lines.join('\n')).toMatch(/0 rows carry/);
    // the graph load: 20 orders of 3 items, the first order found under the key written into its row
    expect(summary.graphRows).toEqual({ orders: 20, order_items: 60 });
    expect(summary.graphLoaded).toBe(true);
    // another process on postgres.js shares the sequences: its keys are new ones
    expect(summary.postgresJsKeys).toHaveLength(2);
    expect(summary.overlap).toBe(0);
    expect(lines.join('\n')).toMatch(/on postgres\.js \(one driver for Drizzle and hilo\)/);
  });
});

describePostgres('drizzle example: the graph benchmark behind `pnpm bench`', (db) => {
  it('stores the graph both ways and reports both timings', async () => {
    const { benchGraph } = await import('../src/bench.js');
    const result = await benchGraph(db.url, { orders: 50, items: 4, rounds: 1 });
    expect(result).toMatchObject({ orders: 50, itemsPerOrder: 4, rounds: 1 });
    // BEGIN, orders, order items, COMMIT — on the hilo and identity paths
    expect(result.hiloStatements).toBe(4);
    expect(result.identityStatements).toBe(4);
    expect(result.uuidv7Statements).toBe(4);
    expect(result.uuidv7Ms).toBeGreaterThan(0);
    expect(result.hiloMs).toBeGreaterThan(0);
    expect(result.speedup).toBeCloseTo(result.identityMs / result.hiloMs);
  });
});
