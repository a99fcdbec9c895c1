import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';
import { envKeys } from './environment.ts';
import { probeMysql, probePostgres } from './probe.ts';

declare global {
  var __hiloEmbeddedPostgres: RunningPostgres | undefined;
}

/**
 * Jest global set-up: starts an embedded PostgreSQL when `HILO_PG_URL` is unset, and checks that each
 * configured database answers. Workers read the outcome from the environment (see `databases.ts`).
 */
export default async function globalSetup(): Promise<void> {
  if (!process.env[envKeys.pgUrl]) {
    try {
      const pg = await startEmbeddedPostgres();
      globalThis.__hiloEmbeddedPostgres = pg;
      process.env[envKeys.pgUrl] = pg.url;
      const stopAndExit = (signal: NodeJS.Signals) => {
        void pg.stop().finally(() => process.kill(process.pid, signal));
      };
      process.once('SIGINT', stopAndExit);
      process.once('SIGTERM', stopAndExit);
      process.once('exit', () => void pg.stop());
    } catch (error) {
      process.env[envKeys.pgProblem] = `embedded PostgreSQL could not start: ${String(error).split('\n')[0]}`;
    }
  }
  const pgUrl = process.env[envKeys.pgUrl];
  if (pgUrl) {
    const problem = await probePostgres(pgUrl);
    if (problem) process.env[envKeys.pgProblem] = problem;
  }
  const mysqlUrl = process.env[envKeys.mysqlUrl];
  if (mysqlUrl) {
    const problem = await probeMysql(mysqlUrl);
    if (problem) process.env[envKeys.mysqlProblem] = problem;
  }
}
