// `pnpm start` in this folder: runs the example against DATABASE_URL (a PostgreSQL database it may fill).
import { run } from './main.js';

const url = process.env.DATABASE_URL ?? process.env.HILO_PG_URL;
if (!url) {
  process.stderr.write(
    'Set DATABASE_URL to a PostgreSQL database, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/shop\n',
  );
  process.exit(2);
}
const summary = await run(url);
console.log(JSON.stringify(summary));
