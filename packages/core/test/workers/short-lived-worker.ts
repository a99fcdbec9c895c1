/**
 * Child process of short-lived-suite.ts: a script as a cron job or a serverless function runs it. It connects to
 * argv[2], draws argv[4] keys of segment `runs` from the source kind argv[3] with default sizing, prints them as
 * JSON, and ends without calling close() on the generator or the client: it must still exit by itself.
 */
import { connect, createHiLo } from '../../src/index.js';

const [url, source, count] = [process.argv[2]!, process.argv[3] as 'table' | 'sequence', Number(process.argv[4])];
const client = await connect(url);
const hilo = createHiLo({ client, source });
const keys: number[] = [];
for (let i = 0; i < count; i++) keys.push(await hilo.next('runs'));
console.log(JSON.stringify(keys));
