/**
 * Reads the shape of the other system's objects (column types, unique keys, sequence options), so a preset
 * can refuse a table or sequence whose values it would misread instead of handing out keys from it.
 */
import type { SqlClient } from '../sql/sql-client.js';
import type { SequenceShape, TableRef } from '../sql/catalog.js';
import { catalogOf } from './catalogs.js';
import { mismatchErrors } from '../error-messages.js';

export type { SequenceShape, TableRef } from '../sql/catalog.js';

/** Integer column types: a stored hi or value in any other type (text, numeric, float) is not one we can trust. */
const INTEGER_TYPES = new Set(['bigint', 'integer', 'int', 'smallint', 'mediumint', 'tinyint', 'int8', 'int4', 'int2']);

/** The type of `column` in `ref` (see {@link Catalog.columnType}). */
export function columnType(client: SqlClient, ref: TableRef, column: string): Promise<string | undefined> {
  return catalogOf(client).columnType(client, ref, column);
}

/** Whether `column` alone is the primary key or a unique key of `ref`. */
export function isUniqueColumn(client: SqlClient, ref: TableRef, column: string): Promise<boolean> {
  return catalogOf(client).isUniqueColumn(client, ref, column);
}

/** Whether a table, view or sequence named `ref` exists. */
export async function relationExists(client: SqlClient, ref: TableRef): Promise<boolean> {
  return (await sequenceShape(client, ref)).kind !== 'missing';
}

/** What a shape check found wrong with one column, or `undefined` when it is an integer column. */
export async function integerColumnProblem(
  client: SqlClient,
  ref: TableRef,
  column: string,
): Promise<string | undefined> {
  const type = await columnType(client, ref, column);
  if (type === undefined)
    return (await relationExists(client, ref)) ? `it has no column ${column}` : 'it does not exist';
  return INTEGER_TYPES.has(type) ? undefined : `${column} is ${type}, not an integer type`;
}

/** Reads a sequence's shape; `ref.table` is the sequence name. */
export function sequenceShape(client: SqlClient, ref: TableRef): Promise<SequenceShape> {
  return catalogOf(client).sequenceShape(client, ref);
}

/**
 * Throws a `HiLoMismatchError` naming `preset` when `ref` exists but is not a sequence hilo can share: another
 * kind of object, or a sequence that cycles. A missing sequence passes (the preset creates it or says so).
 */
export async function requireShareableSequence(
  client: SqlClient,
  preset: string,
  ref: TableRef,
  display: string,
  fix: string,
): Promise<void> {
  const shape = await sequenceShape(client, ref);
  if (shape.kind === 'missing') return;
  if (shape.kind !== 'sequence') {
    throw mismatchErrors.notASequence(preset, display, shape.kind, fix);
  }
  if (shape.cycles === true) {
    throw mismatchErrors.sequenceCycles(preset, display, fix);
  }
}

/** Memoises an async check until it succeeds (a failure is retried at the next call). */
export function once(check: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= check().catch((error: unknown) => {
      done = undefined;
      throw error;
    });
    return done;
  };
}
