import { connect, sequenceSource, tableSource, type SqlClient, type SqlHiSource } from 'hilo-core';
import { defaultSourceKind } from 'hilo-core/adapter-kit';
import type { SourceKind } from './arguments.js';

/** Block size when `--block-size` is not given and no existing sequence says otherwise. */
export const DEFAULT_BLOCK_SIZE = 100;

/** How long connecting, and each reservation, may take before the command gives up (exit 1). */
export const TIMEOUT_MS = 5000;

/** Options every subcommand shares. */
export interface TargetOptions {
  readonly url: string;
  /** Default: `sequence` on PostgreSQL, `table` elsewhere. */
  readonly source?: SourceKind;
  /** The hi table of the table source. */
  readonly table?: string;
}

/** What a subcommand works on: a connection pool, the source kind, and how to build that source. */
export interface Target {
  readonly client: SqlClient;
  readonly kind: SourceKind;
  /** `{ table }` when `--table` was given, for core's functions. */
  readonly tableOptions: { table?: string };
  /**
   * Builds a hi source of `kind`; `blockSize` is a sequence's INCREMENT BY; missing objects are created
   * only when `create` is true.
   */
  source(options: { blockSize: number; create: boolean }): SqlHiSource;
  /**
   * Checks segment names against the source's own rules (a sequence name is a SQL identifier) without
   * touching the database, so a bad name is reported as bad input even when the database is down.
   */
  checkSegments(segments: readonly string[]): void;
  /** Ends the pool; never rejects. */
  close(): Promise<void>;
}

/**
 * Opens a pool from `--url` and decides the source kind. Nothing connects yet: the first query does, and
 * fails within the connect timeout (5 s) when the database cannot be reached.
 */
export async function openTarget(options: TargetOptions): Promise<Target> {
  const client = await connect(options.url, { poolSize: 2, connectTimeoutMs: TIMEOUT_MS });
  const kind: SourceKind = options.source ?? defaultSourceKind(client);
  const tableOptions = options.table === undefined ? {} : { table: options.table };
  const source: Target['source'] = ({ blockSize, create }) =>
    kind === 'sequence'
      ? sequenceSource(client, { increment: blockSize, create })
      : tableSource(client, { ...tableOptions, create });
  return {
    client,
    kind,
    tableOptions,
    source,
    // schemaSql() validates every name it turns into SQL text and runs nothing
    checkSegments: (segments) => void source({ blockSize: DEFAULT_BLOCK_SIZE, create: false }).schemaSql(segments),
    // a pool that never connected may reject on close; that must not hide the error that ended the command
    close: () => client.close().catch(() => undefined),
  };
}
