import { run } from './main.js';

const url = process.argv[2] ?? process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('usage: pnpm start postgres://user@host:5432/db (or set DATABASE_URL)\n');
  process.exit(2);
}
console.log(await run(url));
