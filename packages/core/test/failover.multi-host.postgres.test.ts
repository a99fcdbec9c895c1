/**
 * A libpq host list (`postgres://h1,h2/db?target_session_attrs=read-write`) on a real PostgreSQL primary with a
 * streaming standby (issue #47, item 3): `connect()` reaches the host that accepts writes whatever its place in
 * the list, and when the primary dies and the standby is promoted, hilo's own pool moves to it with no address
 * switched by anyone, and no caller sees an error a wait would cure, nor a key twice.
 */
import { describeReplication } from '@hilo/testing';
import { connect, createHiLo, HiLoError, type HiLoEvent, type SqlClient } from 'hilo-core';

import { sleep, until } from './failover-support.js';

const portOf = (url: string) => Number(new URL(url).port);
/** `postgres://user:password@` of the pair's URLs. */
const login = (url: string) => `postgres://${new URL(url).username}:${new URL(url).password}@`;

async function serverPort(client: SqlClient): Promise<number> {
  const { rows } = await client.query<{ port: number }>('select inet_server_port() as port');
  return Number(rows[0]!.port);
}

/** Asks hilo for keys in a loop, as request handlers would, recording every key and every error. */
function keyLoop(hilo: { next(segment: string): Promise<number> }) {
  const keys: number[] = [];
  const errors: unknown[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        keys.push(await hilo.next('orders'));
      } catch (error) {
        errors.push(error);
      }
      if (keys.length % 5 === 0) await sleep(2);
    }
  })();
  return {
    keys,
    errors,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** An error as a failure message should show it: class, code and message. */
const describeError = (error: unknown) =>
  error instanceof HiLoError ? `${error.name} ${error.code}: ${error.message}` : String(error);

const clients: SqlClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

describeReplication('a libpq host list', (replication) => {
  /**
   * A primary and standby, and a generator on a host list naming the primary first (as a list written before a
   * failover would have it), checking the server every 300 ms.
   */
  async function hiloOnHostList(source: 'sequence' | 'table') {
    const pair = await replication.start();
    const [standby, primary] = [portOf(pair.standbyUrl), portOf(pair.primaryUrl)];
    const url = `${login(pair.primaryUrl)}127.0.0.1:${primary},127.0.0.1:${standby}/postgres?target_session_attrs=read-write`;
    const client = await connect(url, { connectTimeoutMs: 1000 });
    clients.push(client);
    const events: HiLoEvent[] = [];
    const hilo = createHiLo({
      client,
      source,
      blockSize: 20,
      adaptive: false,
      serverCheckMs: 300,
      timeoutMs: 20_000,
      onEvent: (event) => events.push(event),
    });
    return { pair, standby, primary, client, hilo, events };
  }

  it('takes the host that accepts writes, in any place of the list; `any` takes the first that answers', async () => {
    const pair = await replication.start();
    const [standby, primary] = [portOf(pair.standbyUrl), portOf(pair.primaryUrl)];
    const hosts = `127.0.0.1:${standby},127.0.0.1:${primary}`;
    const readWrite = await connect(`${login(pair.primaryUrl)}${hosts}/postgres?target_session_attrs=read-write`);
    const any = await connect(`${login(pair.primaryUrl)}${hosts}/postgres`);
    const primaryOnly = await connect(
      `${login(pair.primaryUrl)}127.0.0.1:${standby}/postgres?target_session_attrs=primary`,
    );
    clients.push(readWrite, any, primaryOnly);

    expect(await serverPort(readWrite)).toBe(primary);
    await readWrite.transaction(async (tx) => tx.query('create table written (id int)'));
    expect(await serverPort(any)).toBe(standby);
    // a list whose only host is a standby: retryable, naming the host and why it was passed over
    const refused = await primaryOnly.query('select 1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HiLoError);
    expect(refused).toMatchObject({ code: 'HILO_SOURCE_UNAVAILABLE', retryable: true });
    expect((refused as Error).message).toContain(`127.0.0.1:${standby} is in recovery`);
  });

  it('follows the primary to the promoted standby: callers wait, no error and no key twice', async () => {
    const { pair, standby, primary, client, hilo, events } = await hiloOnHostList('sequence');
    const { keys, errors, stop } = keyLoop(hilo);
    try {
      await until('200 keys before the failover', () => keys.length >= 200);
      expect(await serverPort(client)).toBe(primary);
      await pair.waitForReplay(); // the standby has every reservation: the failover loses none
      await pair.killPrimary();
      const before = keys.length;
      await sleep(500);
      await pair.promoteStandby();
      await until('200 keys after the promotion', () => keys.length >= before + 200, 30_000);
    } finally {
      await stop();
      await hilo.close();
    }
    expect(errors.map(describeError)).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(await serverPort(client)).toBe(standby);
    expect(events.some((event) => event.type === 'failover')).toBe(true);
  });

  it('a primary turned read-only (as a demoted one is) sends hilo to the host that accepts writes', async () => {
    const { pair, standby, client, hilo, events } = await hiloOnHostList('table');
    const { keys, errors, stop } = keyLoop(hilo);
    try {
      await until('200 keys before the switch', () => keys.length >= 200);
      // the old primary stays up and reachable but refuses writes (SQLSTATE 25006), as after a demotion
      await pair.query('primary', 'alter system set default_transaction_read_only = on');
      await pair.query('primary', 'select pg_reload_conf()');
      await pair.waitForReplay();
      const before = keys.length;
      await pair.promoteStandby();
      await until('200 keys after the switch', () => keys.length >= before + 200, 30_000);
    } finally {
      await stop();
      await hilo.close();
    }
    expect(errors.map(describeError)).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(await serverPort(client)).toBe(standby);
    expect(events.some((event) => event.type === 'failover')).toBe(true);
  });
});
