import { checkInteger } from '../engine/checks.js';
import { validateSegment } from '../engine/segment-name.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import { DIALECTS, SEQUENCE_STATEMENTS } from '../dialects/index.js';
import { toHiLoError } from './driver-errors.js';
import { SEQUENCE_SUFFIX } from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import { configurationErrors, sourceErrors } from '../error-messages.js';

/** Options of {@link alterBlockSize}. */
export interface AlterBlockSizeOptions {
  /** The segment whose sequence changes. */
  readonly segment: string;
  /** The new INCREMENT BY: keys per `nextval`. */
  readonly blockSize: number;
  /** The sequence's schema (PostgreSQL) or database (MariaDB); default: the connection's. */
  readonly schema?: string;
}

/** What {@link alterBlockSize} did. */
export interface AlterBlockSizeResult {
  readonly segment: string;
  /** INCREMENT BY before. */
  readonly from: bigint;
  /** INCREMENT BY now. */
  readonly to: bigint;
}

/**
 * Changes the INCREMENT BY of a segment's `pooled-lo` sequence (PostgreSQL or MariaDB) without overlap: the
 * next block starts after the last one handed out with the old increment. Growing is safe while applications
 * run (they read each value as a smaller block inside the new one); shrinking needs them stopped, since a
 * running one still reads each value as a block of the old, larger size.
 *
 * @example
 * ```ts
 * await alterBlockSize(client, { segment: 'orders', blockSize: 40 });
 * ```
 */
export async function alterBlockSize(client: SqlClient, options: AlterBlockSizeOptions): Promise<AlterBlockSizeResult> {
  const { segment, blockSize } = options;
  validateSegment(segment);
  checkInteger('blockSize', blockSize);
  const sql = SEQUENCE_STATEMENTS[client.dialect];
  if (sql === undefined) throw configurationErrors.alterWithoutSequences(client.dialect);
  const schema = options.schema === undefined ? undefined : validateIdentifier('schema', options.schema);
  const name = validateIdentifier(`sequence (of segment ${JSON.stringify(segment)})`, `${segment}${SEQUENCE_SUFFIX}`);
  const quoted = qualifiedName(DIALECTS[client.dialect], 'sequence', name, schema);
  try {
    const refused = await sql.refusal?.(client, quoted);
    if (refused !== undefined) throw refused;
    const from = await sql.readIncrement(client, quoted, schema, name);
    if (from === undefined) throw sourceErrors.alterSequenceMissing(quoted, segment);
    const to = BigInt(blockSize);
    if (from !== to) await sql.alterIncrement(client, quoted, from, to);
    return { segment, from, to };
  } catch (error) {
    throw toHiLoError(error, {
      dialect: client.dialect,
      action: `changing the INCREMENT BY of ${client.dialect} sequence ${quoted}`,
    });
  }
}
