// A PostgreSQL role that may not read the server identity (issue #40): managed services may revoke
// pg_control_system() from ordinary roles. hilo then reserves without the identity, says once, with the warning
// code HILO_NO_SERVER_IDENTITY, that a failover will go unnoticed, and never asks again: not in the reservations,
// and the generator stops polling a source with no identity to give. A role that may read it reports the server
// in every reservation.
import { randomBytes } from 'node:crypto';
import { describePostgres } from '@hilo/testing';
import { connect, createHiLoGenerator, sequenceSource, tableSource, type HiSource, type SqlClient } from 'hilo-core';

/** The messages of the process warnings with `code` emitted while `work` runs. */
async function warningsWhile(code: string, work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
    if (options?.code === code) seen.push(String(warning));
  }) as typeof process.emitWarning;
  try {
    await work();
  } finally {
    process.emitWarning = emitWarning;
  }
  return seen;
}

/** Counts the server() calls that reach the source, and the identities they returned. */
function counted(source: HiSource): { source: HiSource; answers: (string | undefined)[] } {
  const answers: (string | undefined)[] = [];
  return {
    answers,
    source: {
      ...source,
      server: async (signal) => {
        const identity = await source.server!(signal);
        answers.push(identity);
        return identity;
      },
    },
  };
}

describePostgres('PostgreSQL server identity for a role that may not read it', (db) => {
  const role = `hilo_noid_${randomBytes(4).toString('hex')}`;
  let admin: SqlClient;
  let limited: SqlClient;
  beforeAll(async () => {
    admin = await connect(db.url);
    await admin.query(`create role ${role} login password 'hilo'`);
    await admin.query(`grant create on schema public to ${role}`);
    // function privileges belong to this database only: the rest of the server is untouched
    await admin.query('revoke execute on function pg_control_system() from public');
    const url = new URL(db.url);
    url.username = role;
    url.password = 'hilo';
    limited = await connect(url.toString());
  });
  afterAll(async () => {
    // the database may be dropped by now (describePostgres's own afterAll): only the role is left to remove,
    // which belongs to the server, not to the database
    await limited?.close().catch(() => undefined);
    await admin?.query(`drop owned by ${role}`).catch(() => undefined);
    await admin?.close().catch(() => undefined);
    const server = await connect(db.url.replace(/\/[^/?]+(\?|$)/, '/postgres$1'));
    try {
      await server.query(`drop role if exists ${role}`);
    } finally {
      await server.close();
    }
  });

  it.each(['sequence', 'table'] as const)(
    'the %s source reserves without the identity, warns once, and stops asking',
    async (kind) => {
      // every statement that reads the identity, whichever way it reaches the database
      let identityReads = 0;
      const watched = new Proxy(limited, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (name !== 'query' || typeof value !== 'function') return value;
          return (sql: string, ...rest: unknown[]) => {
            if (sql.includes('pg_control_system')) identityReads++;
            return (value as (...args: unknown[]) => unknown).call(target, sql, ...rest);
          };
        },
      });
      const base =
        kind === 'sequence'
          ? sequenceSource(watched, { increment: 10 })
          : tableSource(watched, { table: 'hilo_noid_segments' });
      const { source, answers } = counted(base);
      const reported: string[] = [];
      const keys: number[] = [];
      const warnings = await warningsWhile('HILO_NO_SERVER_IDENTITY', async () => {
        const generator = createHiLoGenerator({
          source: {
            ...source,
            reserve: (segment, request) =>
              source.reserve(segment, { ...request, server: (identity) => reported.push(identity) }),
          },
          blockSize: 10,
          adaptive: false,
          serverCheckMs: 20,
        });
        try {
          for (let i = 0; i < 35; i++) keys.push(await generator.next(`noid_${kind}`));
          await new Promise((resolve) => setTimeout(resolve, 200));
          for (let i = 0; i < 5; i++) keys.push(await generator.next(`noid_${kind}`));
        } finally {
          await generator.close();
        }
      });
      expect(keys).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /cannot read the identity of the server .*permission denied for function pg_control_system/,
      );
      expect(warnings[0]).toMatch(
        /a failover to a standby will not be noticed \(see "Failover" in the hilo-core README\)/,
      );
      // no reservation reported a server, the database was asked once, and a source with no identity to give is
      // not polled every serverCheckMs: the generator asked once, got none, and stopped
      expect(reported).toEqual([]);
      expect(identityReads).toBe(1);
      expect(answers).toEqual([undefined]);
    },
  );

  it('a role that may read it gets the server in every reservation, with no warning', async () => {
    const source = sequenceSource(admin, { increment: 10 });
    const reported: string[] = [];
    const warnings = await warningsWhile('HILO_NO_SERVER_IDENTITY', async () => {
      const signal = new AbortController().signal;
      await source.server!(signal);
      for (let i = 0; i < 2; i++)
        await source.reserve('readable', { size: 10, signal, server: (identity) => reported.push(identity) });
    });
    expect(warnings).toEqual([]);
    expect(reported).toHaveLength(2);
    expect(reported[0]).toMatch(/^system \d+ timeline \d+ started [\d.]+$/);
    expect(reported[1]).toBe(reported[0]);
  });
});
