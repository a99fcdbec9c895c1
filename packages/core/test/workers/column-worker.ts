/**
 * Child process of the column-registry suite (issue 52, DESIGN rule 13): one deploy's process, with a generator whose
 * segment keys `table.id` (`storedKeys`), storing each key it hands out in that table at once, as an application
 * does. Prints `done` after `keys` keys; on an error, `error ` and JSON of its code, claim and message, and exits 1.
 * A key stored twice fails the insert on the table's primary key: `error` with no hilo code.
 *
 * argv[2] is JSON: { url, source: 'sequence' | 'table', segment, table, keys, blockSize }.
 * Run with `node --import tsx column-worker.ts '<json>'`; it imports core's sources, no build needed.
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
  const { code, claim } = error as { code?: unknown; claim?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  process.stdout.write(`error ${JSON.stringify({ code: code ?? null, claim: claim ?? null, message })}\n`);
  process.exitCode = 1;
} finally {
  await hilo.close();
  await client.close();
}
