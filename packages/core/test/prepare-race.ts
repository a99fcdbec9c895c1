import { randomName } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';

/**
 * Eight processes (a connection each) prepare the same sequence and hi table at once, then reserve: every
 * `create … if not exists` race must end with one object and eight distinct blocks. Shared by the
 * PostgreSQL and MariaDB source tests.
 */
export async function expectPreparesOnceUnderRace(url: string): Promise<void> {
  const signal = new AbortController().signal;
  const clients = await Promise.all(Array.from({ length: 8 }, () => connect(url, { poolSize: 1 })));
  try {
    const segment = randomName('race');
    const table = randomName('hi');
    await Promise.all(clients.map((c) => sequenceSource(c, { increment: 10 }).prepare(segment)));
    await Promise.all(clients.map((c) => tableSource(c, { table }).prepare(segment)));
    const blocks = await Promise.all(
      clients.map((c) => tableSource(c, { table }).reserve(segment, { size: 5, signal })),
    );
    expect(new Set(blocks.map((b) => b[0]!.first)).size).toBe(8);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
