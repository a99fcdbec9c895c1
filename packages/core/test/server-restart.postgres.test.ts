// Issue 52 item 7: a plain restart of the PostgreSQL server hilo reserves on (the same system identifier and timeline,
// a new start time) reads as a restart, not a promotion: the `failover` event says `change: 'restart'`, the keys in
// hand are reported lost with reason `restart`, and the process warning is HILO_SERVER_RESTART, naming no standby.
// The keys are still discarded (a server that crashed with synchronous_commit off, or was restored in place, comes
// back the same way), and every later key is above every key reserved before. An isolated server of its own.
import { startEmbeddedPostgres, type RunningPostgres } from '@hilo/testing';
import type { HiLoEvent } from '../src/engine/events.js';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import { sequenceSource } from '../src/operations/sources.js';
import { postgresReplication } from '../src/dialects/postgres/replication.js';

describe('postgres: a restarted server', () => {
  let server: RunningPostgres;
  beforeAll(async () => {
    server = await startEmbeddedPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('reads as a restart, not a promotion; the keys in hand are dropped and later keys lie above them', async () => {
    const client = await connect(server.url);
    const events: HiLoEvent[] = [];
    const warnings: unknown[][] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = (...args: unknown[]) => void warnings.push(args);
    const hilo = createHiLoGenerator({
      source: sequenceSource(client, { increment: 50 }),
      blockSize: 50,
      adaptive: false,
      prefetchAt: false,
      onEvent: (event) => events.push(event),
    });
    try {
      // segment `held` keeps 40 keys in hand; `other`'s reservation after the restart reads the server's identity
      const before = await hilo.reserve('held', 10);
      await server.restart();
      await hilo.reserve('other', 1);
      expect(hilo.stats().held!.state).toBe('unverified');
      const after = await hilo.next('held');
      expect(after).toBeGreaterThan(Math.max(...before));

      const failovers = events.filter((e) => e.type === 'failover');
      expect(failovers).toHaveLength(1);
      const failover = failovers[0];
      expect(failover).toMatchObject({ change: 'restart' });
      expect(failover!.keysLost).toBe(40);
      expect(events.filter((e) => e.type === 'lost')).toEqual([
        { type: 'lost', segment: 'held', keys: 40, reason: 'restart' },
      ]);
      const restartWarnings = warnings.filter((w) => (w[1] as { code?: string })?.code === 'HILO_SERVER_RESTART');
      expect(restartWarnings).toHaveLength(1);
      expect(String(restartWarnings[0]![0])).toMatch(/restarted .*same system and timeline.*No failover happened/);
      expect(String(restartWarnings[0]![0])).not.toMatch(/promoted/);
      expect(warnings.filter((w) => (w[1] as { code?: string })?.code === 'HILO_FAILOVER')).toEqual([]);
    } finally {
      process.emitWarning = emitWarning;
      await hilo.close();
      await client.close();
    }
  }, 120_000);
});

describe('postgres: what changed between two server identities', () => {
  const id = (system: string, timeline: string, started: string) =>
    `system ${system} timeline ${timeline} started ${started}`;
  it.each([
    ['the same system and timeline, a new start time', id('7', '1', '100.5'), id('7', '1', '200.25'), 'restart'],
    ['the same system on a new timeline', id('7', '1', '100.5'), id('7', '2', '200.25'), 'promotion'],
    ['another system', id('7', '1', '100.5'), id('8', '1', '100.5'), 'other-server'],
    ['a text it does not know', 'server_id 3', id('7', '1', '1'), 'other-server'],
  ])('%s', (_title, from, to, change) => {
    expect(postgresReplication.change!(from, to)).toBe(change);
  });
});
