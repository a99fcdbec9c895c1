// MariaDB's server identity (issue #40, item 6): `@@server_id`, which replication requires to differ between a
// primary and each replica. The sequence source reads it in the reservation's own statement; the table source, whose
// reservation is one UPDATE read through the OK packet, right after it on the same connection, and both through
// `server()`, which a generator asks every serverCheckMs. Detection itself runs in the engine (server-watch.test.ts)
// and across a real failover (failover.postgres.test.ts, failover.mysql.test.ts).
import { describeMysql } from '@hilo/testing';
import { connect, createHiLoGenerator, sequenceSource, tableSource, type HiSource, type SqlClient } from 'hilo-core';

describeMysql('MariaDB server identity', (db) => {
  let client: SqlClient;
  let serverId: string;
  beforeAll(async () => {
    client = await connect(db.url);
    const { rows } = await client.query<{ id: unknown }>('select cast(@@server_id as char) as id');
    serverId = String(rows[0]!.id);
  });
  afterAll(async () => {
    await client.close();
  });

  it('a sequence reservation reports the server it ran on, read in the same statement', async () => {
    const source = sequenceSource(client, { increment: 10 });
    const seen: string[] = [];
    const signal = new AbortController().signal;
    const blocks = await source.reserve('identity', { size: 25, signal, server: (identity) => seen.push(identity) });
    expect(blocks).toEqual([{ first: 1n, last: 30n }]);
    expect(seen).toEqual([`server_id ${serverId}`]);
    expect(await source.server!(signal)).toBe(`server_id ${serverId}`);
  });

  it('a table reservation reports the server it ran on, read on its connection, and only when asked', async () => {
    const source = tableSource(client, { table: 'hilo_identity_reserve' });
    const seen: string[] = [];
    const signal = new AbortController().signal;
    const server = (identity: string) => void seen.push(identity);
    expect(await source.reserve('identity', { size: 10, signal, server })).toEqual([{ first: 1n, last: 10n }]);
    expect(await source.reserve('identity', { size: 5, signal, server })).toEqual([{ first: 11n, last: 15n }]);
    // without a transaction-capable session the same holds: the UPDATE and the read share a transaction
    const { session: _session, ...withoutSessions } = client;
    const plain = tableSource(withoutSessions, { table: 'hilo_identity_reserve' });
    expect(await plain.reserve('identity', { size: 5, signal, server })).toEqual([{ first: 16n, last: 20n }]);
    expect(seen).toEqual([`server_id ${serverId}`, `server_id ${serverId}`, `server_id ${serverId}`]);
    expect(await source.reserve('identity', { size: 5, signal })).toEqual([{ first: 21n, last: 25n }]);
    expect(seen).toHaveLength(3);
    await client.query('drop table hilo_identity_reserve');
  });

  it('a generator over the table source learns the server from checks, and checks it every serverCheckMs', async () => {
    const source = tableSource(client, { table: 'hilo_identity_segments' });
    const answers: (string | undefined)[] = [];
    const watched: HiSource = {
      ...source,
      server: async (signal) => {
        const identity = await source.server!(signal);
        answers.push(identity);
        return identity;
      },
    };
    const generator = createHiLoGenerator({ source: watched, blockSize: 10, serverCheckMs: 20 });
    expect(await generator.next('orders')).toBe(1);
    // the watch asks again and again (every serverCheckMs): waited for, not counted in a fixed time (issue #52)
    for (const deadline = Date.now() + 30_000; answers.length < 3;) {
      if (Date.now() > deadline) throw new Error('the server watch did not ask three times within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(new Set(answers)).toEqual(new Set([`server_id ${serverId}`]));
    expect(generator.nextSync('orders')).toBe(2); // the same server all along: nothing was dropped
    await generator.close();
    await client.query('drop table hilo_identity_segments');
  });
});
