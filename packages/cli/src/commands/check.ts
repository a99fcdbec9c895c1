import { createHiLoGenerator, HiLoStoreBehindError, sqlStoredKeys } from 'hilo-core';
import type { GuardRef } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, TIMEOUT_MS, type TargetOptions } from '../open.js';
import { resolveBlockSize } from './block-size.js';

/** Options of `hilo check`. */
export interface CheckOptions extends TargetOptions {
  readonly json?: boolean;
}

/** What `hilo check` found for one segment. */
export interface CheckResult {
  readonly segment: string;
  readonly from: string;
  /** `ok`, or `behind` when the store would hand out a key a row already has. */
  readonly status: 'ok' | 'behind';
  /** For `behind`: what is wrong and the command that fixes it. */
  readonly problem?: string;
  readonly fix?: string;
}

/** One or more segments were found behind their stored keys: exit status 1, after every segment was printed. */
export class StoreBehindFound extends Error {
  constructor(behind: number, total: number) {
    super(
      `${behind} of ${total} segment${total === 1 ? '' : 's'} ${behind === 1 ? 'is' : 'are'} behind the keys ` +
        `stored in their tables; run the \`hilo floor\` command printed for each.`,
    );
    this.name = 'StoreBehindFound';
  }
}

/**
 * `hilo check`: for each `SEGMENT=TABLE[.COLUMN]`, does what a process starting now would do — reads the largest
 * key stored in the column, reserves one block and checks it against the column (hilo-core's verified blocks)
 * — and prints whether the hi store is ahead of the rows, or the `hilo floor` command that fixes it. Run it after
 * a restore or a switchover. Nothing is created (a missing store is an error). The block it reserves is given
 * back where the source can prove nobody reserved after it (table sources); otherwise it is a gap.
 */
export async function runCheck(refs: readonly GuardRef[], options: CheckOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    const segments = refs.map((ref) => ref.segment ?? ref.table);
    target.checkSegments(segments);
    const results: CheckResult[] = [];
    for (const [i, ref] of refs.entries()) {
      const segment = segments[i]!;
      const from = `${ref.schema === undefined ? '' : `${ref.schema}.`}${ref.table}.${ref.column}`;
      const blockSize = await resolveBlockSize(target, segment, undefined);
      const generator = createHiLoGenerator({
        source: target.source({ blockSize, create: false }),
        blockSize,
        adaptive: false,
        prefetchAt: false,
        keyType: 'bigint',
        timeoutMs: TIMEOUT_MS,
        storedKeys: sqlStoredKeys(target.client, [
          { segment, table: ref.table, column: ref.column, schema: ref.schema },
        ]),
      });
      try {
        await generator.warm([segment]);
        results.push({ segment, from, status: 'ok' });
      } catch (error) {
        if (!(error instanceof HiLoStoreBehindError)) throw error;
        results.push({
          segment,
          from,
          status: 'behind',
          problem: error.problem,
          fix: (error.hint?.cli ?? '').replace(
            '--url <URL>',
            `--url URL${options.table === undefined ? '' : ` --table ${options.table}`}`,
          ),
        });
      } finally {
        await generator.close();
      }
    }
    if (options.json) {
      await out.write(`${JSON.stringify(results)}\n`);
    } else {
      for (const r of results) {
        await out.write(
          r.status === 'ok'
            ? `segment ${JSON.stringify(r.segment)}: ok; the next block is above every key in ${r.from}\n`
            : `segment ${JSON.stringify(r.segment)}: BEHIND; ${r.problem} ${r.fix}\n`,
        );
      }
    }
    await out.end();
    const behind = results.filter((r) => r.status === 'behind').length;
    if (behind > 0) throw new StoreBehindFound(behind, results.length);
  } finally {
    await target.close();
  }
}
