import { ensureKeyGuard, ensureSchema, keyGuardSql, schemaSql, type KeyGuardTarget } from 'hilo-core';
import { scriptStatement } from 'hilo-core/adapter-kit';
import type { GuardRef, SourceKind } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { DEFAULT_BLOCK_SIZE, openTarget, type TargetOptions } from '../open.js';
import { createdBlockSize, resolveBlockSize } from './block-size.js';
import { configurationErrors } from '../error-messages.js';

/** Options of `hilo init`. */
export interface InitOptions extends TargetOptions {
  readonly blockSize?: number;
  readonly json?: boolean;
  /** Print the statements instead of running them. */
  readonly sql?: boolean;
  /** Key columns to guard against rows that arrive without a key (`--guard`, repeatable). */
  readonly guard?: readonly GuardRef[];
}

function columnName(ref: GuardRef): string {
  return `${ref.schema === undefined ? '' : `${ref.schema}.`}${ref.table}.${ref.column}`;
}

/**
 * Which segment each `--guard` belongs to: the one named before `=`, else the segment named like the table,
 * else the only segment. It must be one of the segments being created, so a typo cannot guard a column
 * with a segment nobody draws from.
 */
export function guardTargets(segments: readonly string[], guards: readonly GuardRef[]): KeyGuardTarget[] {
  return guards.map((ref) => {
    const segment =
      ref.segment ?? (segments.includes(ref.table) ? ref.table : segments.length === 1 ? segments[0] : undefined);
    const column = columnName(ref);
    if (segment === undefined) {
      throw configurationErrors.guardWithoutSegment(column, ref.table, segments[0]);
    }
    if (!segments.includes(segment)) {
      throw configurationErrors.guardSegmentNotCreated(ref.segment, column, segment, segments);
    }
    return {
      segment,
      table: ref.table,
      column: ref.column,
      ...(ref.schema === undefined ? {} : { schema: ref.schema }),
    };
  });
}

/**
 * `hilo init`: creates what each segment needs (its sequence, or the hi table and the segment's row) unless
 * it exists, then guards the `--guard` key columns (a raising default on PostgreSQL, a trigger on
 * MariaDB/MySQL and SQLite) so that a row inserted without a key is rejected. Idempotent; an existing sequence whose
 * INCREMENT BY differs from `--block-size` is reported (exit 2), never altered, also when another init created it
 * while this one ran (each reads back what exists before it says ready).
 */
export async function runInit(segments: readonly string[], options: InitOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  const { client, kind, tableOptions } = target;
  try {
    target.checkSegments(segments);
    const guards = guardTargets(segments, options.guard ?? []);
    // every guard name is checked before anything is created
    const guardSql = guards.length === 0 ? [] : keyGuardSql(client.dialect, guards);
    if (options.sql) {
      const increment = options.blockSize ?? DEFAULT_BLOCK_SIZE;
      const statements = [
        ...schemaSql({ dialect: client.dialect, source: kind, segments, increment, ...tableOptions }),
        ...guardSql,
      ];
      await out.write(
        options.json ? `${JSON.stringify(statements)}\n` : statements.map((s) => scriptStatement(client, s)).join(''),
      );
    } else {
      const ready: { segment: string; source: SourceKind; blockSize?: number; guards?: string[] }[] = [];
      for (const segment of segments) {
        const asked = await resolveBlockSize(target, segment, options.blockSize);
        await ensureSchema(client, { source: kind, segments: [segment], increment: asked, ...tableOptions });
        // read back: an init racing this one may have created the sequence first, with its own increment
        const increment = await createdBlockSize(target, segment, asked, options.blockSize);
        ready.push(kind === 'sequence' ? { segment, source: kind, blockSize: increment } : { segment, source: kind });
      }
      if (guards.length > 0) await ensureKeyGuard(client, guards);
      for (const entry of ready) {
        const mine = guards
          .filter((g) => g.segment === entry.segment)
          .map((g) => columnName({ ...g, column: g.column ?? 'id' }));
        if (mine.length > 0) entry.guards = mine;
      }
      const where = kind === 'sequence' ? 'sequence' : `row in table ${options.table ?? 'hilo_segments'}`;
      const guarded = (r: (typeof ready)[number]) =>
        r.guards === undefined ? '' : `; rows of ${r.guards.join(', ')} without a key are rejected`;
      const increment = (r: (typeof ready)[number]) => (r.blockSize === undefined ? '' : `, increment ${r.blockSize}`);
      await out.write(
        options.json
          ? `${JSON.stringify(ready)}\n`
          : ready
              .map((r) => `ready: segment ${JSON.stringify(r.segment)} (${where}${increment(r)}${guarded(r)})\n`)
              .join(''),
      );
    }
    await out.end();
  } finally {
    await target.close();
  }
}
