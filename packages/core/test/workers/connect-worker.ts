/**
 * Child process of connect-fallback.mysql.test.ts: connect() to argv[2], draw three keys of a segment, and print
 * them as JSON with whether `pg` and `mysql2` load and the version of the fallback driver argv[3] it resolves. Run
 * under hide-modules.mjs, which makes the usual driver absent.
 */
import { connect, createHiLo } from '../../src/index.js';
import { installedVersion } from './installed-version.js';

const url = process.argv[2]!;
const fallback = process.argv[3]!;
const client = await connect(url, { poolSize: 2 });
const hilo = createHiLo({ client, blockSize: 10, adaptive: false });
const keys = [await hilo.next('fallback'), await hilo.next('fallback'), await hilo.next('fallback')];
await hilo.close();
await client.close();
const loaded = async (name: string) =>
  import(name).then(
    () => true,
    () => false,
  );
console.log(
  JSON.stringify({
    keys,
    pg: await loaded('pg'),
    mysql2: await loaded('mysql2/promise'),
    fallbackVersion: installedVersion(fallback, import.meta.resolve(fallback)),
  }),
);
