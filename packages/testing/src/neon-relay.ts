import { once } from 'node:events';
import { createConnection } from 'node:net';
import { WebSocketServer, type RawData } from 'ws';

/** A loopback stand-in for Neon's WebSocket proxy: each WebSocket is piped to the PostgreSQL it names. */
export interface NeonRelay {
  /** The port on 127.0.0.1 that `neonConfig.wsProxy` points at. */
  readonly port: number;
  /** WebSockets the relay accepted so far. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

/**
 * Starts the relay Neon's serverless driver reaches PostgreSQL through (its `Pool` speaks the PostgreSQL protocol
 * over a WebSocket): `neonConfig.wsProxy = (host, port) => \`127.0.0.1:${relay.port}/v1?address=${host}:${port}\``.
 * Only loopback addresses are relayed.
 */
export async function startNeonRelay(): Promise<NeonRelay> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  let accepted = 0;
  server.on('connection', (socket, request) => {
    accepted++;
    const address = new URL(request.url ?? '/', 'http://relay').searchParams.get('address') ?? '';
    const [host, port] = address.split(':');
    if ((host !== '127.0.0.1' && host !== 'localhost') || port === undefined) {
      socket.close(1008, `the relay only reaches loopback, not "${address}"`);
      return;
    }
    const tcp = createConnection({ host, port: Number(port) });
    socket.on('message', (data: RawData) => {
      tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    tcp.on('data', (chunk) => socket.send(chunk));
    socket.on('close', () => tcp.destroy());
    socket.on('error', () => tcp.destroy());
    tcp.on('close', () => socket.close());
    tcp.on('error', () => socket.terminate());
  });
  const { port } = server.address() as { port: number };
  return {
    port,
    accepted: () => accepted,
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
