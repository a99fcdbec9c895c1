import { checkStore } from 'hilo-core';
import type { GuardRef } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

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

/** Core's `hilo floor` hint, with the URL placeholder of the CLI's messages and the `--table` this run was given. */
export function cliFix(fix: string, options: { readonly table?: string }): string {
  return fix.replace('--url <URL>', `--url URL${options.table === undefined ? '' : ` --table ${options.table}`}`);
}

/**
 * `hilo check`: for each `SEGMENT=TABLE[.COLUMN]`, asks what a process starting now would find — is the block the
 * hi store hands out next above every key stored in the column? — and prints ok, or the `hilo floor` command that
 * fixes it. Run it after a restore or a switchover. It only reads (hilo-core's `checkStore`): it reserves no
 * block and changes no sequence or row, so the store is the same before and after. A missing store is an error.
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
      const found = await checkStore(target.client, {
        segment,
        stored: [ref],
        source: target.kind,
        sourceOptions: target.tableOptions,
      });
      results.push(
        found.status === 'ok'
          ? { segment, from, status: 'ok' }
          : { segment, from, status: 'behind', problem: found.problem!, fix: cliFix(found.fix!, options) },
      );
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
