import { describePostgres } from '@hilo/testing';
import { run } from '../src/main.js';

describePostgres('example: mikro-orm shop', (db) => {
  it('should know every key before flush and persist the batch in as few statements as autoincrement', async () => {
    const lines: string[] = [];
    const result = await run(db.url, (...args) => lines.push(args.join(' ')));
    expect(result.keysBeforeFlush).toBe(4 + 180); // the first order, then the batch of 20 + 40 + 120
    expect(result.statements).toBe(5); // begin, one insert per table, commit
    expect(result.statements).toBeLessThanOrEqual(result.identityStatements);
    expect(lines.some((line) => line.startsWith('rolled back (payment declined)'))).toBe(true);
  });
});

describePostgres('example: the mikro-orm graph benchmark behind `pnpm bench`', (db) => {
  it('should flush the graph both ways in the same number of statements and report both timings', async () => {
    const { benchGraph } = await import('../src/bench.js');
    const result = await benchGraph(db.url, { orders: 50, items: 4, rounds: 1 });
    expect(result).toMatchObject({ orders: 50, itemsPerOrder: 4, rounds: 1 });
    // begin, one multi-row insert for orders and one for items (under MikroORM's batch size), commit
    expect(result.hiloStatements).toBe(4);
    expect(result.identityStatements).toBe(4);
    expect(result.uuidv7Statements).toBe(4);
    expect(result.uuidv7Ms).toBeGreaterThan(0);
    expect(result.speedup).toBeCloseTo(result.identityMs / result.hiloMs);
  });
});
