import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMissingPeer } from './missing-peer.ts';

/** The jars a Hibernate 3.6 node needs, as Debian installs them (`libhibernate3-java` and the JDBC drivers). */
const JARS = [
  'hibernate-core.jar',
  'hibernate-commons-annotations.jar',
  'dom4j.jar',
  'commons-collections3.jar',
  'antlr.jar',
  'javassist.jar',
  'geronimo-jta-1.2-spec.jar',
  'geronimo-jpa_2.0_spec.jar',
  'slf4j-api.jar',
  'slf4j-nop.jar',
  'postgresql.jar',
  'mariadb-java-client.jar',
];
const JAR_DIR = process.env.HILO_JAVA_JARS ?? '/usr/share/java';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SOURCES = join(ROOT, 'interop/hibernate');
const HINT =
  'install Java and Hibernate 3.6 (apt-get install libhibernate3-java libpostgresql-jdbc-java ' +
  'libmariadb-java libjavassist-java; .ci/run does)';

let cached: { classpath: string } | { problem: string } | undefined;

/**
 * Compiles interop/hibernate/*.java once into node_modules/.cache/hilo-hibernate/<hash of the sources> and
 * returns the classpath, or why a real Hibernate cannot run here.
 */
export function hibernateClasspath(): { classpath: string } | { problem: string } {
  if (cached) return cached;
  const missing = JARS.filter((jar) => !existsSync(join(JAR_DIR, jar)));
  if (missing.length > 0) return (cached = { problem: `no ${missing.join(', ')} in ${JAR_DIR}: ${HINT}` });
  try {
    execFileSync('javac', ['-version'], { stdio: 'ignore' });
  } catch {
    return (cached = { problem: `no javac on PATH: ${HINT}` });
  }
  const files = readdirSync(SOURCES)
    .filter((f) => f.endsWith('.java'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(join(SOURCES, file)));
  const out = join(ROOT, 'node_modules/.cache/hilo-hibernate', hash.digest('hex').slice(0, 16));
  const jars = JARS.map((jar) => join(JAR_DIR, jar)).join(':');
  if (!existsSync(out)) {
    // compile into a temporary folder and rename, so a concurrent worker never sees half a build
    const tmp = `${out}.${process.pid}`;
    mkdirSync(tmp, { recursive: true });
    execFileSync('javac', ['-nowarn', '-d', tmp, '-cp', jars, ...files.map((f) => join(SOURCES, f))], {
      stdio: 'pipe',
    });
    try {
      renameSync(tmp, out);
    } catch {
      // another worker won the race; its classes are the same
    }
  }
  return (cached = { classpath: `${out}:${jars}` });
}

/** `describe` when a real Hibernate can run; else fails under CI=true, or skips with a one-line hint. */
export function describeHibernate(title: string, body: (classpath: () => string) => void): void {
  const found = hibernateClasspath();
  if ('problem' in found) {
    const problem = found.problem;
    const placeholder = () => '';
    describeMissingPeer(
      { needs: 'a real Hibernate 3.6', skipping: 'Hibernate interop tests', problem, placeholder },
      title,
      body,
    );
    return;
  }
  describe(title, () => body(() => found.classpath));
}

/** A running Hibernate node (interop/hibernate/HibernateNode.java). */
export interface HibernateNode {
  /** Resolves when every configuration has inserted its first row (schema created, generators fetched). */
  readonly ready: Promise<void>;
  /** Lets the node insert the rest; resolves when it is done, rejects with its stderr when it fails. */
  go(): Promise<void>;
}

/**
 * Starts one JVM running `configs` (`table;generatorClass;param=value,…`) against `jdbcUrl` (user and
 * password in it), `rows` rows each.
 */
export function startHibernateNode(
  classpath: string,
  jdbcUrl: string,
  dialect: string,
  rows: number,
  configs: readonly string[],
): HibernateNode {
  const child: ChildProcessWithoutNullStreams = spawn('java', [
    '-cp',
    classpath,
    'HibernateNode',
    jdbcUrl,
    dialect,
    String(rows),
    ...configs,
  ]);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolveExit, reject) => {
    child.on('exit', (code) =>
      code === 0 && stdout.includes('DONE')
        ? resolveExit()
        : reject(new Error(`Hibernate node exited with ${code}: ${stderr.slice(-2000)}`)),
    );
  });
  const ready = new Promise<void>((resolveReady, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('READY')) resolveReady();
    });
    exited.catch(reject);
  });
  exited.catch(() => undefined);
  return {
    ready,
    go() {
      child.stdin.end('go\n');
      return exited;
    },
  };
}

/** A running Hibernate 3.6 that inserts rows when told to (interop/hibernate/HibernateServer.java). */
export interface HibernateServer {
  /**
   * Inserts `rows` rows through configuration `index` (0-based, in the order given), over `threads` threads of
   * its SessionFactory; resolves when they are committed, rejects with Hibernate's error.
   */
  insert(index: number, rows: number, threads?: number): Promise<void>;
  /** Closes the SessionFactories and ends the JVM. */
  close(): Promise<void>;
}

/**
 * Starts one JVM with a SessionFactory per configuration (`table;generatorClass;param=value,…`) against
 * `jdbcUrl`: Hibernate's schema update runs for each, no generator fetches until the first insert. Resolves once
 * it is ready for commands; one JVM serves every test of a file.
 */
export async function startHibernateServer(
  classpath: string,
  jdbcUrl: string,
  dialect: string,
  configs: readonly string[],
): Promise<HibernateServer> {
  const child: ChildProcessWithoutNullStreams = spawn('java', [
    '-cp',
    classpath,
    'HibernateServer',
    jdbcUrl,
    dialect,
    ...configs,
  ]);
  let stderr = '';
  let buffered = '';
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  const lines: string[] = [];
  let ended: Error | undefined;
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at).trim();
      buffered = buffered.slice(at + 1);
      const next = waiting.shift();
      if (next) next.resolve(line);
      else lines.push(line);
    }
  });
  child.on('exit', (code) => {
    ended = new Error(`Hibernate server exited with ${code}: ${stderr.slice(-2000)}`);
    for (const w of waiting.splice(0)) w.reject(ended);
  });
  const line = () =>
    new Promise<string>((resolveLine, reject) => {
      const ready = lines.shift();
      if (ready !== undefined) return resolveLine(ready);
      if (ended) return reject(ended);
      waiting.push({ resolve: resolveLine, reject });
    });
  // one command at a time: answers come back in order
  let queue: Promise<unknown> = Promise.resolve();
  const command = (text: string) => {
    const answer = queue.then(() => {
      child.stdin.write(`${text}\n`);
      return line();
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  const first = await line();
  if (first !== 'READY') throw new Error(`Hibernate server said ${first}: ${stderr.slice(-2000)}`);
  return {
    async insert(index, rows, threads = 1) {
      const answer = await command(`insert ${index} ${rows} ${threads}`);
      if (answer !== `OK ${index}`) throw new Error(`Hibernate insert failed: ${answer}\n${stderr.slice(-2000)}`);
    },
    async close() {
      if (ended) return;
      const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
      child.stdin.end('quit\n');
      await exited;
    },
  };
}
