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
  });
});
