// A process of key-guard.sqlite.test.ts: starts hilo-kysely on a SQLite file (which installs the key guard when it
// is missing), takes one block, and closes. argv[2]: the file.
import { hiloKysely } from 'hilo-kysely';

const hilo = hiloKysely({ url: `sqlite:${process.argv[2]!}`, blockSize: 10, tables: { orders: true } });
try {
  await hilo.warm();
  process.stdout.write('started');
} finally {
  await hilo.close();
}
