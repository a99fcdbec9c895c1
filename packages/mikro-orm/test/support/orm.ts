import { Utils, type EntityName, type MikroORM, type Options } from '@mikro-orm/core';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { HiLo, type HiLoOptions } from '../../src/index.js';
import { initOrm } from './compat.js';

export type Kind = 'postgres' | 'mysql' | 'sqlite';

/** Every SQL statement MikroORM sends, as logged (with `begin`/`commit`). */
export class StatementLog {
  readonly statements: string[] = [];

  readonly logger = (message: string): void => {
    const match = /^\[query\] (.*?)(?: \[took [^\]]*\])?$/s.exec(message);
    if (match?.[1]) this.statements.push(match[1]);
  };

  clear(): void {
    this.statements.length = 0;
  }

  /** Statements other than transaction control. */
  get writes(): string[] {
    return this.statements.filter(
      (s) => !/^(begin|commit|rollback|start transaction|savepoint|release savepoint)/i.test(s),
    );
  }

  inserts(table?: string): string[] {
    return this.statements.filter(
      (s) => /^insert into/i.test(s) && (!table || s.includes(`${table}\``) || s.includes(`${table}"`)),
    );
  }
}

export function driverOptions(kind: Kind, url: string): Partial<Options> {
  switch (kind) {
    case 'postgres':
      return { driver: PostgreSqlDriver, clientUrl: url };
    case 'mysql':
      // MikroORM 6 connects through knex and the mariadb connector, which gives up on a socket after 1 s: a
      // loaded CI machine starting several ORM processes at once once took longer, failing a test that is not
      // about connecting. MikroORM 7's mysql2 pool waits 10 s already.
      return {
        driver: MariaDbDriver,
        clientUrl: url,
        ...(Utils.getORMVersion().startsWith('6.')
          ? { driverOptions: { connection: { connectTimeout: 10_000 } } }
          : {}),
      };
    case 'sqlite':
      return { driver: SqliteDriver, dbName: url };
  }
}

/** A MikroORM with the HiLo extension and a statement log; the schema is created on first use. */
export async function openOrm(
  kind: Kind,
  url: string,
  entities: readonly unknown[],
  hilo: HiLoOptions = {},
  extra: Partial<Options> = {},
): Promise<{ orm: MikroORM; log: StatementLog }> {
  const log = new StatementLog();
  const orm = await initOrm({
    ...driverOptions(kind, url),
    entities: entities as EntityName<object>[],
    extensions: [HiLo.configure(hilo)],
    debug: ['query'],
    colors: false,
    logger: log.logger,
    allowGlobalContext: false,
    ...extra,
  } as Options);
  return { orm, log };
}
