/**
 * The application's address in the failover harnesses (PostgreSQL's replication.ts, mariadb-replication.ts): a
 * loopback TCP forwarder to "the current primary" that a test moves to the promoted server, as a virtual IP or a
 * DNS name moves in production. Moving resets the live connections; new ones reach the new target.
 */
import { createServer, Socket, type Server } from 'node:net';

/** A running forwarder. */
export interface Forwarder {
  /** The loopback port clients connect to. */
  readonly port: number;
  /** Sends new connections to `port` on loopback and resets the live ones. */
  switchTo(port: number): void;
  /** Resets every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a forwarder on a free loopback port, to `initial` on loopback. */
export async function startForwarder(initial: number): Promise<Forwarder> {
  let target = initial;
  const pairs = new Set<[Socket, Socket]>();
  const reset = (pair: [Socket, Socket]) => {
    pairs.delete(pair);
    for (const socket of pair) if (!socket.destroyed) socket.resetAndDestroy();
  };
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    for (const socket of pair) socket.on('error', () => reset(pair)).on('close', () => reset(pair));
    upstream.connect(target, '127.0.0.1');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('forwarder: no TCP address');
  return {
    port: address.port,
    switchTo(port) {
      target = port;
      for (const pair of [...pairs]) reset(pair);
    },
    async close() {
      for (const pair of [...pairs]) reset(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
