import { ensureSchema, schemaSql } from 'hilo-core';
import type { SourceKind } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { DEFAULT_BLOCK_SIZE, openTarget, type TargetOptions } from '../open.js';
import { resolveBlockSize } from './block-size.js';

/** Options of `hilo init`. */
export interface InitOptions extends TargetOptions {
  readonly blockSize?: number;
  readonly json?: boolean;
  /** Print the statements instead of running them. */
  readonly sql?: boolean;
}

/**
 * `hilo init`: creates what each segment needs (its sequence, or the hi table and the segment's row) unless
 * it exists. Idempotent; an existing sequence whose INCREMENT BY differs from `--block-size` is reported
 * (exit 2), never altered.
 */
export async function runInit(segments: readonly string[], options: InitOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  const { client, kind, tableOptions } = target;
  try {
    target.checkSegments(segments);
    if (options.sql) {
      const increment = options.blockSize ?? DEFAULT_BLOCK_SIZE;
      const statements = schemaSql({ dialect: client.dialect, source: kind, segments, increment, ...tableOptions });
      await out.write(options.json ? `${JSON.stringify(statements)}\n` : statements.map((s) => `${s};\n`).join(''));
    } else {
      const ready: { segment: string; source: SourceKind; blockSize?: number }[] = [];
      for (const segment of segments) {
        const increment = await resolveBlockSize(target, segment, options.blockSize);
        await ensureSchema(client, { source: kind, segments: [segment], increment, ...tableOptions });
        ready.push(kind === 'sequence' ? { segment, source: kind, blockSize: increment } : { segment, source: kind });
      }
      const where = kind === 'sequence' ? 'sequence' : `row in table ${options.table ?? 'hilo_segments'}`;
      await out.write(
        options.json
          ? `${JSON.stringify(ready)}\n`
          : ready
              .map((r) => `ready: segment ${JSON.stringify(r.segment)} (${where}${r.blockSize === undefined ? '' : `, increment ${r.blockSize}`})\n`)
              .join(''),
      );
    }
    await out.end();
  } finally {
    await target.close();
  }
}
