// A Cloudflare Worker (run on workerd by d1.test.ts) whose D1 inserts take their keys from hilo, as the core README's
// D1 section shows: one generator for the isolate, kept across requests, created in the first request (workerd
// refuses what createHiLo() sets up, an AbortController, at global scope), and asking for the current request's
// binding at each statement.
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import { createHiLo, d1Client, type HiLoGenerator } from '../../src/index.js';

interface Env {
  readonly DB: D1Database;
}

let current: D1Database | undefined;
let hilo: HiLoGenerator<number> | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    current = env.DB;
    const { pathname } = new URL(request.url);
    if (pathname === '/setup') {
      await env.DB.prepare('create table if not exists orders (id integer primary key, note text not null)').run();
      return new Response('ready');
    }
    hilo ??= createHiLo({ client: d1Client(() => current!), blockSize: 10 });
    const id = await hilo.next('orders');
    await env.DB.prepare('insert into orders (id, note) values (?, ?)').bind(id, 'from a Worker').run();
    return new Response(String(id));
  },
};
