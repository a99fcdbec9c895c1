import { DataSource, type DataSourceOptions } from 'typeorm';
import { installHiLo, type HiLoTypeOrm, type HiLoTypeOrmOptions } from 'hilo-typeorm';
import { entities } from './entities.js';
import { StatementLog } from './statement-log.js';
import type { SuiteDatabase } from './sqlite.js';

/** TypeORM connection options for a harness database. */
export function connectionOptions(db: SuiteDatabase): DataSourceOptions {
  if (db.kind === 'sqlite') return { type: 'better-sqlite3', database: db.url };
  return db.kind === 'postgres'
    ? { type: 'postgres', url: db.url }
    : { type: 'mariadb', url: db.url, supportBigNumbers: true, bigNumberStrings: true };
}

/** An initialized DataSource on `db` with the suite's entities, hilo installed and a statement log. */
export async function openDataSource(
  db: SuiteDatabase,
  hilo: HiLoTypeOrmOptions = {},
  extra: Partial<DataSourceOptions> = {},
): Promise<{ dataSource: DataSource; hilo: HiLoTypeOrm; log: StatementLog }> {
  const log = new StatementLog();
  const dataSource = new DataSource({
    ...connectionOptions(db),
    entities,
    synchronize: true,
    logger: log,
    ...extra,
  } as DataSourceOptions);
  await dataSource.initialize();
  try {
    return { dataSource, hilo: await installHiLo(dataSource, hilo), log };
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
}
