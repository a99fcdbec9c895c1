import { HiLoServerUnconfirmedError } from '../errors.js';
import type { ReserveRequest, ServerChange } from '../engine/types.js';
import { abortable } from '../sql/abortable.js';
import type { Dialect } from '../sql/dialect.js';
import { convertDriverError, isTransientError } from '../sql/driver-errors.js';
import type { ReplicationSql, ReserveStatementOptions } from '../sql/replication.js';
import type { SqlClient } from '../sql/sql-client.js';
import { configurationErrors, serverUnconfirmedErrors, synchronousStandbyErrors } from '../error-messages.js';

/** What a SQL source does about the server it reserves on and its standbys (issue #40). */
export interface SourceReplication {
  /** `HiSource.server`: the identity of the server the source reaches now; absent where the database has none. */
  readonly server: ((signal: AbortSignal) => Promise<string | undefined>) | undefined;
  /** `HiSource.serverMayReturn`: a server hilo left may be current again under the same identity. */
  readonly serverMayReturn: boolean;
  /** `HiSource.serverChange`, where the database can tell. */
  readonly serverChange: ((from: string, to: string) => ServerChange) | undefined;
  /** With `synchronousStandby`: rejects with `HiLoSynchronousStandbyError` unless a synchronous standby is there. */
  check(signal?: AbortSignal): Promise<void>;
  /** What the next reservation statement reads and waits for (its server, a synchronous standby). */
  statementOptions(request: ReserveRequest): Promise<ReserveStatementOptions>;
  /**
   * Runs a reservation statement, abandoned when `signal` aborts. With `synchronousStandby`, a statement abandoned
   * while its commit still waits for the standby keeps later reservations from piling up behind it: they fail
   * with `HiLoSynchronousStandbyError` until it ends.
   */
  run<T>(work: () => Promise<T>, signal: AbortSignal, action: string): Promise<T>;
}

/** A server in recovery answered the first identity read: the statement itself then says what it can. */
function unlessInRecovery(error: unknown): undefined {
  if (error instanceof HiLoServerUnconfirmedError) return undefined;
  throw error;
}

/**
 * The replication side of a SQL source on `client`: the server identity read with every reservation (once the
 * server showed it lets this role read it), and `synchronous` reservations with their checks.
 */
export function sourceReplication(
  client: SqlClient,
  rules: Dialect,
  description: string,
  synchronous: boolean,
): SourceReplication {
  // a database inside this process (PGlite) has no standby and cannot fail over: nothing to read or wait for
  const sql = client.inProcess === true ? undefined : rules.replication;
  const standbyProblem = sql?.synchronousStandbyProblem;
  if (synchronous && (standbyProblem === undefined || sql?.synchronousCommit === undefined)) {
    throw configurationErrors.synchronousStandbyUnsupported(
      client.inProcess === true ? `${rules.displayName} inside this process` : rules.displayName,
    );
  }
  /** Whether this role may read the identity: unknown until the first answer. */
  let readable: boolean | undefined;
  /** The standby check that passed (or is running), valid while the source reaches the server it ran on. */
  let checked: Promise<void> | undefined;
  /** The server the standby check passed on, once a statement or a server check told it. */
  let checkedOn: string | undefined;
  /** The last server a statement or a server check reached. */
  let lastServer: string | undefined;
  /** Whether a synchronous standby was ever seen on this database (so an empty setting now is a failover manager's). */
  let confirmedBefore = false;
  /** The identity expression of this client's server (`identityOn`), once known. */
  let expression: Promise<string> | undefined;
  /**
   * Statements abandoned before they ended, by start time: their commit may still wait for the standby on the server
   * after the connection they ran on was dropped (issue 52, item 7), so they stay here until the server says no commit
   * waits any more.
   */
  const waiting = new Set<{ readonly started: number; settled: boolean }>();

  /**
   * How long the oldest abandoned commit has been waiting for the standby, or `undefined` once none does. The server
   * tells where the dialect can ask it; otherwise a statement counts as waiting until its promise ends.
   */
  async function stillWaitingMs(): Promise<number | undefined> {
    const ask = sql?.oldestStandbyWaitMs;
    if (ask !== undefined) {
      let ms: number | undefined;
      try {
        ms = await ask.call(sql, client);
      } catch (error) {
        throw convertDriverError(error, {
          dialect: rules,
          action: `looking for commits waiting for the standby (${description})`,
        });
      }
      if (ms === undefined) waiting.clear();
      return ms;
    }
    for (const statement of waiting) if (statement.settled) waiting.delete(statement);
    if (waiting.size === 0) return undefined;
    return Math.round(performance.now() - Math.min(...[...waiting].map((w) => w.started)));
  }

  function identityExpression(of: ReplicationSql): Promise<string> {
    if (expression === undefined) {
      const found = of.identityOn === undefined ? Promise.resolve(of.identity) : of.identityOn(client);
      expression = found;
      found.catch(() => (expression = undefined));
    }
    return expression;
  }

  /**
   * The source reached `identity`: after a failover the standby check is not trusted any more (issue #47), so the next
   * reservation looks for the new server's synchronous standby before it sends anything.
   */
  function reached(identity: string): void {
    lastServer = identity;
    if (checkedOn === undefined) checkedOn = identity;
    else if (identity !== checkedOn) {
      checked = undefined;
      checkedOn = undefined;
    }
  }

  async function server(signal: AbortSignal): Promise<string | undefined> {
    if (sql === undefined || readable === false) return undefined;
    try {
      const identity = await abortable(identityExpression(sql), signal, `reading the identity of ${description}`);
      const { rows } = await abortable(
        client.query<{ srv: unknown }>(`select ${identity} as srv`),
        signal,
        `reading the identity of the server behind ${description}`,
      );
      readable = true;
      const found = typeof rows[0]?.srv === 'string' ? rows[0].srv : undefined;
      if (found !== undefined && sql.inRecovery?.(found) === true) {
        // a standby, or a primary demoted and restarted as one (a switchover), not promoted yet: it confirms nothing
        // about the keys in memory, and is no failover either (issue #47); the watch keeps them parked and asks again
        throw serverUnconfirmedErrors.inRecovery(description);
      }
      if (found !== undefined) reached(found);
      return found;
    } catch (error) {
      // only a first answer that refuses the statement (a role that may not read it: a managed service revoking
      // pg_control_system) turns the identity off; failovers then go unnoticed, and the warning says so
      if (error instanceof HiLoServerUnconfirmedError) throw error;
      if (readable === true || signal.aborted || isTransientError(error, rules)) {
        throw convertDriverError(error, { dialect: rules, action: `reading the server identity (${description})` });
      }
      readable = false;
      process.emitWarning(
        `hilo: cannot read the identity of the server behind ${description} ` +
          `(${error instanceof Error ? error.message : String(error)}); a failover to a standby will not be ` +
          `noticed (see "Failover" in the hilo-core README).`,
        { code: 'HILO_NO_SERVER_IDENTITY' },
      );
      return undefined;
    }
  }

  async function checkOnce(): Promise<void> {
    let found: { problem: string; retryable: boolean } | undefined;
    try {
      found = await standbyProblem!.call(sql, client, confirmedBefore);
    } catch (error) {
      throw convertDriverError(error, { dialect: rules, action: `looking for a synchronous standby (${description})` });
    }
    if (found !== undefined) throw synchronousStandbyErrors.found(found.problem, found.retryable);
    confirmedBefore = true;
  }

  function check(signal?: AbortSignal): Promise<void> {
    if (!synchronous) return Promise.resolve();
    if (checked === undefined) {
      const running = checkOnce();
      checked = running;
      checkedOn = lastServer;
      running.catch(() => {
        if (checked === running) checked = undefined;
      });
    }
    return abortable(checked, signal, 'looking for a synchronous standby');
  }

  /**
   * What a reservation statement reported about the synchronous standby: without one its commit did not wait, so its
   * keys are discarded (a gap) and the reservation waits for the standby like one that found none before it started.
   */
  function standbyReported(present: boolean): void {
    if (present) {
      confirmedBefore = true;
      return;
    }
    checked = undefined;
    throw synchronousStandbyErrors.reservedWithoutStandby();
  }

  return {
    server: sql === undefined ? undefined : server,
    serverMayReturn: sql?.identityMayReturn === true,
    serverChange: sql?.change,
    check,
    async statementOptions(request) {
      if (synchronous) {
        await check(request.signal);
        if (waiting.size > 0) {
          const ms = await stillWaitingMs();
          if (ms !== undefined) {
            // one more statement would wait behind it: say why instead, and whether the standby is there at all
            await checkOnce();
            throw synchronousStandbyErrors.earlierStillWaiting(ms);
          }
        }
      }
      const standby = synchronous ? standbyReported : undefined;
      if (request.server === undefined || sql === undefined) return { synchronous, standby };
      if (readable === undefined) await server(request.signal).catch(unlessInRecovery);
      if (readable !== true) return { synchronous, standby };
      const report = request.server;
      return {
        server: (identity: string) => {
          reached(identity);
          report(identity);
        },
        identity: await identityExpression(sql),
        synchronous,
        standby,
      };
    },
    run(work, signal, action) {
      const pending = work();
      if (!synchronous) return abortable(pending, signal, action);
      const statement = { started: performance.now(), settled: false };
      const done = () => {
        statement.settled = true;
      };
      pending.then(done, done);
      signal.addEventListener('abort', () => statement.settled || waiting.add(statement), { once: true });
      return abortable(pending, signal, action);
    },
  };
}
