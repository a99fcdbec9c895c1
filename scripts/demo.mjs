// `pnpm demo`: runs the examples against HILO_PG_URL, or an embedded PostgreSQL started for the demo.
import { startEmbeddedPostgres } from '../packages/testing/dist/index.js';
import pg from 'pg';

let embedded;
let url = process.env.HILO_PG_URL;
if (!url) {
  process.stderr.write('demo: starting an embedded PostgreSQL…\n');
  embedded = await startEmbeddedPostgres();
  url = embedded.url;
}
try {
  const client = new pg.Client(url);
  await client.connect();
  const { rows } = await client.query('select version()');
  await client.end();
  console.log(`demo: connected to ${rows[0].version}`);
} finally {
  await embedded?.stop();
}
