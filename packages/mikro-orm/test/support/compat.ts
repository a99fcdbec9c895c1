import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MikroORM, Utils, type Options } from '@mikro-orm/core';
import { HiLo } from '../../src/index.js';
import { Customer, defineEntities } from '../fixtures/define-entities.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The MikroORM release a compat Jest project (packages/mikro-orm-compat, mikro-orm-sqlite-compat,
 * mikro-orm-postgres-compat or mikro-orm-6-compat) maps `@mikro-orm/*` to, and that folder's name
 * (jest.config.ts sets both globals), or `undefined` in the workspace's own project.
 */
export const compatVersion = (globalThis as { HILO_MIKRO_ORM_VERSION?: string }).HILO_MIKRO_ORM_VERSION;
const compatFolder = (globalThis as { HILO_MIKRO_ORM_COMPAT?: string }).HILO_MIKRO_ORM_COMPAT;

/** The tsconfig a worker process runs under: under a compat project, one that maps `@mikro-orm/*` to the same release. */
export const workerTsconfig =
  compatFolder === undefined
    ? join(here, 'tsconfig.worker.json')
    : join(here, '..', '..', '..', compatFolder, 'child', 'tsconfig.json');

/** Environment variable telling a worker which MikroORM it must have loaded. */
const EXPECTED_VERSION_VARIABLE = 'HILO_MIKRO_ORM_EXPECTED';

/** The environment of a worker process: the parent's, plus the release it must load under a compat project. */
export function workerEnvironment(): NodeJS.ProcessEnv {
  return compatVersion === undefined
    ? { ...process.env }
    : { ...process.env, [EXPECTED_VERSION_VARIABLE]: compatVersion };
}

/** In a worker: fails unless the MikroORM loaded is the one the parent's project runs (the mapping took). */
export function checkWorkerVersion(expected: string | undefined = process.env[EXPECTED_VERSION_VARIABLE]): void {
  if (expected !== undefined && Utils.getORMVersion() !== expected) {
    throw new Error(`the worker loaded MikroORM ${Utils.getORMVersion()}, expected ${expected}`);
  }
}

/** Creates the ORM's schema: `orm.schema.create()` on MikroORM 7, `createSchema()` on 6. */
export async function createSchema(orm: { schema: unknown }): Promise<void> {
  const schema = orm.schema as { create?: () => Promise<void>; createSchema?: () => Promise<void> };
  await (schema.create ?? schema.createSchema)?.call(schema);
}

/**
 * `MikroORM.init()`, then on MikroORM 6 `await HiLo.ready(orm)`, as its users do: 6 registers extensions after
 * init() and does not wait for them. On 7, init() alone must be enough, so nothing else is awaited. The ORM is
 * closed when the wait fails.
 */
export async function initOrm(options: Partial<Options>): Promise<MikroORM> {
  const orm = await MikroORM.init(options as Options);
  if (!compatVersion?.startsWith('6.')) return orm;
  try {
    await HiLo.ready(orm);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}

const require = createRequire(import.meta.url);

/** The version of `module` as Node resolves it from the folder `from`. */
export const installedVersion = (module: string, from: string): string =>
  (require(require.resolve(`${module}/package.json`, { paths: [from] })) as { version: string }).version;

/**
 * The installed folder of `@mikro-orm/<name>` as Node resolves it from `from` (symlinks resolved, so its own
 * dependencies resolve as Node would).
 */
export const installedMikroOrmFolder = (name: string, from: string): string =>
  dirname(require.resolve(`@mikro-orm/${name}/package.json`, { paths: [from] }));

/** The SQL `orm.schema.update()` would run (`getUpdateSchemaSQL()` on MikroORM 6 and 7). */
export async function updateSchemaSql(orm: { schema: unknown }): Promise<string> {
  return (orm.schema as { getUpdateSchemaSQL(options?: object): Promise<string> }).getUpdateSchemaSQL({ wrap: false });
}

/** Brings the database schema in line with the entities: `orm.schema.update()` on MikroORM 7, `updateSchema()` on 6. */
export async function updateSchema(orm: { schema: unknown }): Promise<void> {
  const schema = orm.schema as { update?: () => Promise<void>; updateSchema?: () => Promise<void> };
  await (schema.update ?? schema.updateSchema)?.call(schema);
}

/**
 * Stores a customer of the fixtures in define-entities.ts on in-memory SQLite with the HiLo extension (through
 * {@link initOrm}, so MikroORM 6 waits for `HiLo.ready()`) and expects its key at `em.create()`, before the flush
 * that stores the row under it. The compat projects' smoke test that the mapped release really serves keys.
 */
export async function expectKeyAtCreateOnSqlite(driver: Options['driver']): Promise<void> {
  const orm = await initOrm({ driver, dbName: ':memory:', entities: defineEntities, extensions: [HiLo] });
  try {
    await createSchema(orm);
    const em = orm.em.fork();
    const customer = em.create(Customer, { name: 'ada', orders: [] });
    expect(customer.id).toEqual(expect.any(Number));
    await em.flush();
    expect(await orm.em.fork().count(Customer, { id: customer.id })).toBe(1);
  } finally {
    await orm.close();
  }
}
