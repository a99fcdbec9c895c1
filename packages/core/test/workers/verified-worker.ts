/**
 * Child process of the verified-blocks suite (issue 39): a process of its own with a generator that checks every
 * block against the key table (`storedKeys`), storing each key it hands out in that table at once, as an
 * application does. Prints `done` after `keys` keys, or the error's code and message and exits 1 (a false alarm
 * would be `HILO_STORE_BEHIND`).
 *
 * argv[2] is JSON: { url, source: 'sequence' | 'table', segment, table, keys, blockSize }.
 * Run with `node --import tsx verified-worker.ts '<json>'`; it imports core's sources, no build needed.
 */
import { connect } from '../../src/operations/connect.js';
import { createHiLo } from '../../src/operations/create-hilo.js';

interface WorkerSpec {
  url: string;
  source: 'sequence' | 'table';
  segment: string;
  table: string;
  keys: number;
  blockSize: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as WorkerSpec;
const client = await connect(spec.url, { poolSize: 2 });
const hilo = createHiLo({
  client,
  source: spec.source,
  blockSize: spec.blockSize,
  keyType: 'bigint',
  storedKeys: [{ segment: spec.segment, table: spec.table, column: 'id' }],
});
try {
  for (let i = 0; i < spec.keys; i++) {
    await client.query(`insert into ${spec.table} (id) values (${await hilo.next(spec.segment)})`);
  }
  process.stdout.write('done\n');
} catch (error) {
  const code = (error as { code?: unknown }).code;
  process.stdout.write(`${String(code)} ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await hilo.close();
  await client.close();
}
