import { checkInteger } from '../engine/checks.js';
import { validateSegment } from '../engine/segment-name.js';
import { qualifiedName } from '../sql/identifiers.js';
import { postgresDialect } from '../dialects/postgres/dialect.js';
import type { SqlClient } from '../sql/sql-client.js';
import { toBigInt } from '../sources/table-source.js';
import { incrementsFor, keyArithmetic } from '../engine/strategies.js';
import type { Block, HiSource, ReserveRequest, StoredKeyColumn } from '../engine/types.js';
import { relationExists, integerColumnProblem, isUniqueColumn, once } from './shape.js';
import { createItHint, guarded, peerStoredKeys, requirePostgres, setting, type InteropPreset } from './shared.js';
import { mismatchErrors, sourceErrors, sourceUnavailableErrors } from '../error-messages.js';

/** Options of {@link martenPreset}; each mirrors Marten's `HiloSettings` / store options. */
export interface MartenPresetOptions {
  /**
   * `HiloSettings.MaxLo`: keys per hi, `hi × maxLo + 1 … hi × maxLo + maxLo`.
   * @default 1000 (Marten's default)
   */
  readonly maxLo?: number;
  /**
   * The schema of `mt_hilo` (`DatabaseSchemaName`).
   * @default 'public'
   */
  readonly schema?: string;
  /**
   * The `entity_name` of a segment. Marten uses the document type's class name (`typeof(User).Name`, e.g.
   * `User`), or `HiloSettings.SequenceName` when set.
   * @default (segment) => segment
   */
  readonly entityName?: (segment: string) => string;
  /**
   * Compare-and-set attempts before a reservation fails with a retryable error (Marten's
   * `HiloSettings.MaxAdvanceToNextHiAttempts`, 30).
   * @default 30
   */
  readonly attempts?: number;
  /**
   * Whether hilo creates `mt_hilo` when missing.
   * @default true
   */
  readonly create?: boolean;
  /**
   * The tables and key columns (primary or unique keys) each segment's keys are stored in, as
   * `createHiLo({ storedKeys })` takes them.
   * Every block is then checked before its first key is handed out; a key Marten stored inside it means the two
   * sides read the `mt_hilo` row with different settings, and the segment is refused with a `HiLoMismatchError` naming
   * them (see "Verified blocks" in README-interop).
   * @default none
   * @example
   * ```ts
   * martenPreset(client, { storedKeys: [{ segment: 'Order', table: 'mt_doc_order', column: 'id' }] })
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[];
}

/**
 * Shares Marten's hi/lo table `mt_hilo(entity_name, hi_value)`: `hi_value` is the last hi taken (a new row
 * starts at 0, taken by whoever inserts it); hilo takes the next hi with a compare-and-set update, as Marten
 * does, and hands out `hi × maxLo + 1 … hi × maxLo + maxLo`. Before any key is handed out the table is checked:
 * `hi_value` an integer column and `entity_name` its primary (or a unique) key; anything else is refused with a
 * `HiLoMismatchError`. PostgreSQL only (Marten runs on PostgreSQL only):
 * any other client fails here with a `HiLoConfigurationError`.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...martenPreset(client, { maxLo: 1000 }), adaptive: false });
 * ```
 */
export function martenPreset(client: SqlClient, options: MartenPresetOptions = {}): InteropPreset {
  const maxLo = checkInteger('maxLo', options.maxLo ?? 1000);
  const attempts = checkInteger('attempts', options.attempts ?? 30);
  requirePostgres(client, 'Marten');
  const table = qualifiedName(postgresDialect, 'table', 'mt_hilo', options.schema ?? 'public');
  const entityName = options.entityName ?? ((segment: string) => segment);
  const create = options.create ?? true;
  const lo = BigInt(maxLo);
  const hint = createItHint(
    'Let Marten create its schema',
    `creates ${table}(entity_name varchar primary key, hi_value bigint default 0)`,
  );
  const description = `postgres Marten hi/lo table ${table}`;
  const verified = peerStoredKeys(client, options.storedKeys, {
    preset: 'martenPreset',
    peer: 'Marten',
    store: (segment) => `row ${JSON.stringify(entityName(segment))} of ${table}`,
    settings: setting('maxLo', maxLo, options.maxLo),
    ahead: [`Marten's MaxLo (HiloSettings.MaxLo, HiloSequenceDefaults.MaxLo) is larger than \`maxLo: ${maxLo}\``],
    behind: [`Marten's MaxLo is smaller than \`maxLo: ${maxLo}\``],
  });
  const checkShape = once(async () => {
    const ref = { table: 'mt_hilo', schema: options.schema ?? 'public' };
    if (!(await relationExists(client, ref))) throw sourceErrors.storeMissing(description, hint);
    const problems: string[] = [];
    const valueProblem = await integerColumnProblem(client, ref, 'hi_value');
    if (valueProblem !== undefined) problems.push(valueProblem);
    if (!(await isUniqueColumn(client, ref, 'entity_name'))) problems.push('entity_name is not its primary key');
    if (problems.length > 0) {
      throw mismatchErrors.martenTableShape(table, problems);
    }
  });

  const source: HiSource = {
    description,
    async prepare(segment: string, signal: AbortSignal): Promise<void> {
      validateSegment(entityName(validateSegment(segment)));
      await guarded(client, signal, `preparing ${description}`, hint, async () => {
        if (!create) return checkShape();
        await client
          .query(
            `create table if not exists ${table} (entity_name varchar not null primary key, hi_value bigint default 0)`,
          )
          .catch(async (error: unknown) => {
            const { rows } = await client.query<{ t: string | null }>('select to_regclass($1)::text as t', [table]);
            if (rows[0]?.t == null) throw error;
          });
        await checkShape();
      });
    },
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      const name = validateSegment(entityName(validateSegment(segment)));
      const his = BigInt(incrementsFor(request.size, maxLo));
      await guarded(client, request.signal, `checking ${description}`, hint, checkShape);
      return guarded(client, request.signal, `reserving keys for "${segment}" from ${description}`, hint, async () => {
        for (let attempt = 0; attempt < attempts; attempt++) {
          request.signal.throwIfAborted();
          const { rows } = await client.query<{ v: unknown }>(
            `select hi_value::text as v from ${table} where entity_name = $1`,
            [name],
          );
          if (rows[0] === undefined) {
            // Marten inserts 0 and takes hi 0; taking several his stores the last one taken
            const inserted = await client.query(
              `insert into ${table} (entity_name, hi_value) values ($1, $2) on conflict (entity_name) do nothing`,
              [name, String(his - 1n)],
            );
            if (inserted.affectedRows === 1) return keyArithmetic.blocksFromValueRange('marten', 0n, his - 1n, lo);
            continue;
          }
          const current = toBigInt(rows[0].v, 'hi_value');
          const updated = await client.query(
            `update ${table} set hi_value = $1 where entity_name = $2 and hi_value = $3`,
            [String(current + his), name, String(current)],
          );
          if (updated.affectedRows === 1)
            return keyArithmetic.blocksFromValueRange('marten', current + 1n, current + his, lo);
        }
        throw sourceUnavailableErrors.compareAndSetLost(description, attempts, name);
      });
    },
  };
  return { source, blockSize: maxLo, ...verified };
}
