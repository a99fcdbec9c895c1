import { describePostgres } from '@hilo/testing';
import { run } from '../src/main.js';

describePostgres('typeorm example', (db) => {
  it('knows every key before saving and needs no more statements than identity keys', async () => {
    const lines: string[] = [];
    const summary = await run(db.url, (line) => lines.push(line));
    // 3 customers, 6 orders, 15 items
    expect(summary.keysBeforeFlush).toBe(24);
    // BEGIN, one INSERT per table, COMMIT
    expect(summary.statements).toBe(5);
    expect(summary.statements).toBeLessThanOrEqual(summary.identityStatements);
    expect(lines.join('\n')).toMatch(/transaction rolled back \(payment declined\)/);
    expect(lines.join('\n')).toMatch(/0 rows carry/);
    // OpenTelemetry: one reservation per segment at start-up, and the keys handed out (24 + the rolled-back order + the next one)
    expect(summary.metrics['hilo.reservations']).toBeGreaterThanOrEqual(3);
    expect(summary.metrics['hilo.keys.issued']).toBeGreaterThanOrEqual(26);
    expect(summary.metrics['hilo.reservation.duration']).toBe(summary.metrics['hilo.reservations']);
  });
});

describePostgres('typeorm example: the graph benchmark behind `pnpm bench`', (db) => {
  it('stores the graph both ways with one INSERT per table and reports both timings', async () => {
    const { benchGraph } = await import('../src/bench.js');
    const result = await benchGraph(db.url, { orders: 50, items: 4, rounds: 1 });
    expect(result).toMatchObject({ orders: 50, itemsPerOrder: 4, rounds: 1 });
    // BEGIN, orders, order items, COMMIT — on the hilo and identity paths
    expect(result.hiloStatements).toBe(4);
    expect(result.identityStatements).toBe(4);
    // the UUIDv7 graph's keys are set before save(), so TypeORM first loads any rows with those keys:
    // BEGIN, a SELECT per table, orders, order items, COMMIT
    expect(result.uuidv7Statements).toBe(6);
    expect(result.uuidv7Ms).toBeGreaterThan(0);
    expect(result.hiloMs).toBeGreaterThan(0);
    expect(result.speedup).toBeCloseTo(result.identityMs / result.hiloMs);
    // the same identity and UUIDv7 graphs on a DataSource without hilo: TypeORM as it ships, same statements
    expect(result.stock).toMatchObject({
      identityStatements: 4,
      uuidv7Statements: 6,
      identityRounds: 1,
      uuidv7Rounds: 1,
    });
    expect(result.stock!.identityMs).toBeGreaterThan(0);
    expect(result.stock!.uuidv7Ms).toBeGreaterThan(0);
  });
});
