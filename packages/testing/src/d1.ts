/**
 * Cloudflare D1 for the D1 tests (issue 54): miniflare runs workerd, Cloudflare's Workers runtime, as a child
 * process on loopback, with one local D1 database (`DB`) per block, in memory; `mf.dispose()` ends it after the
 * block. A D1 binding obtained here is the object a Worker gets as `env.DB`, reached from Node through miniflare's
 * proxy: `prepare()`, `bind()`, `all()`, `batch()` and `exec()` behave as in a Worker. `worker(entry)` runs a module
 * inside workerd itself, as a deployed Worker runs, with its own D1 database.
 */
import { createRequire } from 'node:module';
import { describeMissingPeer } from './missing-peer.ts';

/** The part of a D1 binding (`D1Database`) the tests use; its methods are D1's own. */
export interface D1Binding {
  prepare(sql: string): D1Statement;
  batch(statements: D1Statement[]): Promise<D1Result[]>;
  exec(sql: string): Promise<unknown>;
}

/** What a D1 statement resolves with. */
export interface D1Result<Row = Record<string, unknown>> {
  results: Row[];
  meta: { changes: number };
}

/** A D1 prepared statement (`D1PreparedStatement`). */
export interface D1Statement {
  bind(...values: unknown[]): D1Statement;
  all<Row = Record<string, unknown>>(): Promise<D1Result<Row>>;
  first<Row = Record<string, unknown>>(): Promise<Row | null>;
  run(): Promise<D1Result>;
}

/** A Worker running on workerd (miniflare) with a D1 database of its own bound as `env.DB`. */
export interface D1Worker {
  /** Sends the Worker a GET request for `path` and reads its response. */
  fetch(path: string): Promise<{ status: number; text: string }>;
  /** The Worker's D1 database, reached from Node (to look at what the Worker wrote). */
  database(): Promise<D1Binding>;
}

/** What a D1 test block gets. */
export interface D1PerTest {
  /** The block's D1 database, as a Worker's `env.DB` (started before the block's tests). */
  database(): D1Binding;
  /**
   * Another binding to the same database, as a second Worker (or isolate) holds it: its own proxy object, whose
   * statements reach the one database like the first's.
   */
  anotherBinding(): Promise<D1Binding>;
  /**
   * Starts a Worker whose module is `entry` (a TypeScript file, bundled with its imports by esbuild; package imports
   * stay imports, `node:` modules come from workerd's `nodejs_compat`), on a D1 database of its own; it is disposed
   * after the block.
   */
  worker(entry: string): Promise<D1Worker>;
}

/** Why miniflare cannot run D1 here, or `undefined` when it can. */
export function d1Problem(): string | undefined {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) return `miniflare needs Node.js 22 or later, this is ${process.versions.node}`;
  try {
    createRequire(import.meta.url).resolve('miniflare');
    return undefined;
  } catch {
    return 'miniflare is not installed: run `./pnpm install` (it is a dependency of @hilo/testing)';
  }
}

interface MiniflareLike {
  getD1Database(name: string): Promise<unknown>;
  dispatchFetch(url: string): Promise<{ status: number; text(): Promise<string> }>;
  dispose(): Promise<void>;
}

type MiniflareClass = new (options: object) => MiniflareLike;

const loadMiniflare = async (): Promise<MiniflareClass> =>
  ((await import('miniflare')) as unknown as { Miniflare: MiniflareClass }).Miniflare;

/** `entry` and what it imports as one ES module for workerd. */
async function bundle(entry: string): Promise<string> {
  const esbuild = await import('esbuild');
  const { outputFiles } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    packages: 'external',
    external: ['node:*'],
    write: false,
    logLevel: 'silent',
  });
  return outputFiles[0]!.text;
}

/**
 * A block of tests on a local Cloudflare D1 database: miniflare starts before the block (workerd, about a second)
 * and is disposed after it. Without miniflare the block is a failing `needs miniflare` test under CI=true, and
 * skipped with a hint elsewhere (`describeMissingPeer`).
 */
export function describeD1(title: string, body: (d1: D1PerTest) => void): void {
  const problem = d1Problem();
  if (problem !== undefined) {
    const missing = (): never => {
      throw new Error(problem);
    };
    describeMissingPeer(
      {
        needs: 'miniflare',
        skipping: 'Cloudflare D1 tests',
        problem,
        placeholder: { database: missing, anotherBinding: async () => missing(), worker: async () => missing() },
      },
      title,
      body,
    );
    return;
  }
  let mf: MiniflareLike | undefined;
  let db: D1Binding | undefined;
  const workers: MiniflareLike[] = [];
  describe(title, () => {
    beforeAll(async () => {
      const Miniflare = await loadMiniflare();
      mf = new Miniflare({ modules: true, script: 'export default {}', d1Databases: ['DB'] });
      db = (await mf.getD1Database('DB')) as D1Binding;
    });
    afterAll(async () => {
      for (const worker of workers.splice(0)) await worker.dispose();
      await mf?.dispose();
    });
    body({
      database: () => {
        if (db === undefined) throw new Error('the D1 database is started in beforeAll: use it inside a test');
        return db;
      },
      anotherBinding: async () => {
        if (mf === undefined) throw new Error('the D1 database is started in beforeAll: use it inside a test');
        return (await mf.getD1Database('DB')) as D1Binding;
      },
      worker: async (entry) => {
        const Miniflare = await loadMiniflare();
        const worker = new Miniflare({
          // the module given as it is: miniflare's own collection of imports refuses a dynamic import()'s specifier
          modules: [{ type: 'ESModule', path: 'worker.js', contents: await bundle(entry) }],
          compatibilityDate: '2026-07-01',
          compatibilityFlags: ['nodejs_compat'],
          d1Databases: ['DB'],
        });
        workers.push(worker);
        return {
          fetch: async (path) => {
            const response = await worker.dispatchFetch(new URL(path, 'http://worker.test').href);
            return { status: response.status, text: await response.text() };
          },
          database: async () => (await worker.getD1Database('DB')) as D1Binding,
        };
      },
    });
  });
}
