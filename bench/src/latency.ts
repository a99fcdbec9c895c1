import net from 'node:net';
import pg from 'pg';

/** A loopback TCP proxy that holds every chunk for a fixed time in each direction. */
export interface LatencyProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Delivers chunks in order, each `oneWayMs` after it arrived. Node's timers round to whole milliseconds (a
 * 0.5 ms `setTimeout` waits 1–2 ms), so the last stretch before a chunk is due is waited out on `setImmediate`
 * turns: precise to a few microseconds, at the cost of a busy event loop only while data is in flight.
 */
function delayedWriter(target: net.Socket, oneWayMs: number): (chunk: Buffer) => void {
  const queue: Array<{ due: number; chunk: Buffer }> = [];
  let pumping = false;
  const pump = () => {
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.due <= now) target.write(queue.shift()!.chunk);
    if (queue.length === 0) {
      pumping = false;
      return;
    }
    const wait = queue[0]!.due - now;
    if (wait > 2) setTimeout(pump, Math.floor(wait - 1.5));
    else setImmediate(pump);
  };
  return (chunk) => {
    queue.push({ due: performance.now() + oneWayMs, chunk });
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  };
}

/** Starts a {@link LatencyProxy} in front of the PostgreSQL server of `url`. */
export async function startLatencyProxy(url: string, oneWayMs: number): Promise<LatencyProxy> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', delayedWriter(upstream, oneWayMs));
    upstream.on('data', delayedWriter(client, oneWayMs));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The median time of `select 1` on one connection to `url`, in milliseconds. */
export async function roundTripMs(url: string, samples = 200): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < 20; i++) await client.query('select 1');
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t = performance.now();
      await client.query('select 1');
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  } finally {
    await client.end();
  }
}
