import type { EntityManager, MikroORM, Options } from '@mikro-orm/core';
import { checkInteger, checkKeySupplyOptions, DEFAULT_TABLE } from 'hilo-core/adapter-kit';
import { CHECKS, createGeneratorFor } from './connection.js';
import { hiloEntityManagerClass } from './entity-manager.js';
import { registersAfterInit, requireInternals, subclassEntityManager } from './mikro-orm-internals.js';
import { EXTENSION_NAME, HiLoRuntime, runtimeFor, type AnyKeyGenerator } from './runtime.js';
import type { HiLoOptions } from './options.js';
import { HiLoFlushSubscriber } from './subscriber.js';
import { configurationErrors } from './error-messages.js';

export type { HiLoOptions } from './options.js';

/** Something MikroORM accepts in its `extensions` list. */
export interface HiLoExtension {
  readonly name: string;
  register(orm: MikroORM): void;
}

/**
 * The MikroORM extension that gives entities marked with `hiloKey()` / `@HiLoKey()` their keys from hi/lo
 * blocks: at `em.create()` from memory, at flush (awaiting a reservation) for whatever is still missing, and
 * in `em.insert()` / `em.insertMany()`. Blocks are reserved on a connection of its own, never the
 * EntityManager's transaction, and a block is reserved for every keyed entity during `MikroORM.init()`.
 * @example
 * ```ts
 * const orm = await MikroORM.init(defineConfig({ clientUrl, entities: [Order], extensions: [HiLo] }));
 * ```
 */
export class HiLo {
  /** Registers the extension with default options; called by MikroORM for `extensions: [HiLo]`. */
  static register(orm: MikroORM): void {
    registerHiLo(orm, {});
  }

  /**
   * The extension with options.
   * @example
   * ```ts
   * defineConfig({ extensions: [HiLo.configure({ blockSize: 500 })], … })
   * ```
   */
  static configure(options: HiLoOptions = {}): HiLoExtension {
    validate(options);
    return { name: 'HiLo', register: (orm) => registerHiLo(orm, options) };
  }

  /**
   * Waits until the extension has reserved its first blocks and resolves with its generator; rejects with the
   * reason when it could not (the database cannot be reached). MikroORM 7's `init()` already waits for this;
   * on MikroORM 6, which does not wait for extensions, call it after `init()` so that `em.create()` finds keys
   * in memory from the first entity and a database that cannot be reached fails at start-up.
   * @example
   * ```ts
   * const orm = await MikroORM.init(config);
   * await HiLo.ready(orm);
   * ```
   */
  static async ready(ormOrEm: MikroORM | EntityManager): Promise<AnyKeyGenerator> {
    return runtimeFor(ormOrEm).ready();
  }

  /**
   * The generator serving an ORM or EntityManager, for keys outside entities (`await generator.next('orders')`).
   * @example
   * ```ts
   * const next = await HiLo.generator(orm.em).next('orders');
   * ```
   */
  static generator(ormOrEm: MikroORM | EntityManager): AnyKeyGenerator {
    const generator = runtimeFor(ormOrEm).generator;
    if (!generator) {
      throw configurationErrors.noGenerator();
    }
    return generator;
  }
}

/**
 * Config fragment that registers the extension: spread it into `defineConfig()`.
 * @example
 * ```ts
 * defineConfig({ ...hiloConfig({ blockSize: 500 }), clientUrl, entities })
 * ```
 */
export function hiloConfig(options: HiLoOptions = {}): Pick<Options, 'extensions'> {
  return { extensions: [HiLo.configure(options)] };
}

function validate(options: HiLoOptions): void {
  // reservations go to a pool hilo opens with the ORM's settings when neither `client` nor `generator` is given
  checkKeySupplyOptions(options, { ...CHECKS, ownConnection: true });
  if (options.poolSize !== undefined) checkInteger('poolSize', options.poolSize);
}

function registerHiLo(orm: MikroORM, options: HiLoOptions): void {
  try {
    registerOn(orm, options);
  } catch (error) {
    // MikroORM 6 has connected by the time extensions register, and a throwing extension makes init() reject
    // without handing out the ORM: close its connection, or the pool would keep the process alive
    if (registersAfterInit()) orm.close(true).catch(() => undefined);
    throw error;
  }
}

function registerOn(orm: MikroORM, options: HiLoOptions): void {
  const config = orm.config;
  if (config.getExtension(EXTENSION_NAME)) {
    throw configurationErrors.registeredTwice();
  }
  requireInternals(orm);
  // a generator passed in is used as it is, and stays open (the key supply closes only what it opened)
  const runtime = new HiLoRuntime((o, columns) => createGeneratorFor(o, options, columns));
  config.registerExtension(EXTENSION_NAME, () => runtime);
  keepHiTableOutOfSchemaDiff(orm, options.table ?? DEFAULT_TABLE);
  const subscriber = new HiLoFlushSubscriber(runtime);
  config.set('subscribers', [...config.get('subscribers'), subscriber]);

  if (registersAfterInit()) {
    // MikroORM 6 registers extensions once init() has discovered, connected and built orm.em, and does not
    // await them: subscribe on the event manager orm.em and its forks share, and start now; `HiLo.ready(orm)`
    // awaits the warm-up, and until it is done keys come from the flush.
    orm.em.getEventManager().registerSubscriber(subscriber);
    runtime.start(orm, orm.getMetadata()).catch(() => undefined);
  } else {
    // Warm-up runs when discovery is done: MikroORM.init() awaits this hook, so init fails fast when the
    // database cannot be reached; the synchronous constructor does not, and keys then come from the flush.
    const discovery = config.get('discovery');
    const userHook = discovery.afterDiscovered;
    config.set('discovery', {
      ...discovery,
      afterDiscovered: async (storage, platform) => {
        await userHook?.(storage, platform);
        const started = runtime.start(orm, storage);
        started.catch(() => undefined);
        await started;
      },
    });
  }

  // em.insert()/insertMany() bypass onCreate; an EntityManager subclass fills keys there.
  subclassEntityManager(orm, (base) => hiloEntityManagerClass(base as never));

  // The generator's pool closes with the ORM; a generator the caller passed in stays theirs. hilo's own close
  // starts first and never waits on MikroORM's (which may not settle after a database restart); it is bounded
  // by `closeTimeoutMs`.
  const close = orm.close.bind(orm);
  orm.close = async (force?: boolean) => {
    const ours = runtime.close();
    try {
      await close(force);
    } finally {
      await ours;
    }
  };
}

/**
 * Adds hilo's hi table to the schema generator's `skipTables`: it is in no entity's metadata, so
 * `orm.schema.update()` and `migration:create` would otherwise drop it, and a recreated table could hand out
 * keys that blocks held in memory by running processes still cover. The setting is this ORM's own object,
 * changed in place, because MikroORM 6 has already built its schema generator (which holds that object) when
 * extensions register.
 */
function keepHiTableOutOfSchemaDiff(orm: MikroORM, table: string): void {
  const settings: { skipTables?: Array<string | RegExp> } = orm.config.get('schemaGenerator');
  const skipTables = settings.skipTables ?? [];
  if (!skipTables.includes(table)) settings.skipTables = [...skipTables, table];
}
