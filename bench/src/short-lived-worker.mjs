// One short-lived process of short-lived.ts (a cron job, a serverless function): connects, draws argv[4] keys of
// segment `starts` from the source kind argv[3] with default sizing, and ends without close(), as such scripts do.
import { connect, createHiLo } from 'hilo-core';

const [url, source, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const hilo = createHiLo({ client: await connect(url), source });
for (let i = 0; i < count; i++) await hilo.next('starts');
