import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'hilo-core';

/** The options the check passes to the adapter under test, besides a `url` of a fresh SQLite file. */
export interface SourceLayoutOptions {
  readonly url: string;
  readonly create?: false;
  readonly strategy?: 'range';
  readonly blockSize?: number;
  readonly adaptive?: false;
  readonly prefetchAt?: false;
}

/** An adapter opened by the check: a key of segment `orders`, and close. */
export interface SourceLayoutSubject {
  nextId(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Proves that an adapter passes its users' `create` and `strategy` options to its hi source, on a real SQLite
 * file: with `create: false` a missing hi table stays missing and the error says to run `hilo init`; with
 * `strategy: 'range'` the table stores the block's last key (the default pooled-lo would store the next
 * block's first, 11).
 */
export async function expectSourceLayoutPassedThrough(
  open: (options: SourceLayoutOptions) => SourceLayoutSubject,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-layout-'));
  try {
    const url = `sqlite:${join(dir, 'layout.db')}`;
    const missing = open({ url, create: false });
    await expect(missing.nextId()).rejects.toThrow(/hilo init/);
    await missing.close();
    const ranged = open({ url, strategy: 'range', blockSize: 10, adaptive: false, prefetchAt: false });
    expect(await ranged.nextId()).toBe(1);
    const client = await connect(url);
    expect((await client.query('SELECT next_value FROM hilo_segments')).rows).toEqual([{ next_value: 10 }]);
    await client.close();
    await ranged.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
