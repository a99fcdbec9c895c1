import { describePostgres } from '@hilo/testing';
import { run } from '../src/main.js';

describePostgres('example: mikro-orm shop', (db) => {
  it('should know every key before flush and persist the batch in as few statements as autoincrement', async () => {
    const lines: string[] = [];
    const result = await run(db.url, (...args) => lines.push(args.join(' ')));
    expect(result.keysBeforeFlush).toBe(4);
    expect(result.statements).toBe(5); // begin, one insert per table, commit
    expect(result.statements).toBeLessThanOrEqual(result.identityStatements);
    expect(lines.some((line) => line.startsWith('rolled back (payment declined)'))).toBe(true);
  });
});
