// The full tier skips a long end-to-end file only when a pass is on record for the same inputs
// (scripts/e2e-records.mjs): a pass is recorded only for a file whose every test passed, found again only under the
// same inputs hash and while it is fresh, and never with HILO_E2E_CACHE=off.
import { mkdtempSync, rmSync, utimesSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import * as records from '../e2e-records.mjs';

interface RecordsModule {
  REMEMBERED: readonly string[];
  endToEndInputsHash(file: string): string | undefined;
  rememberedPasses(): Array<{ file: string; key: string; passedAt: number }>;
  recordPasses(resultsFile: string, keys: Map<string, string>): void;
}
const { REMEMBERED, endToEndInputsHash, rememberedPasses, recordPasses } = records as RecordsModule;

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const [file] = REMEMBERED as [string];

describe('end-to-end pass records', () => {
  let cache: string;
  let saved: { xdg?: string; off?: string };
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'hilo-e2e-records-'));
    saved = { xdg: process.env['XDG_CACHE_HOME'], off: process.env['HILO_E2E_CACHE'] };
    process.env['XDG_CACHE_HOME'] = cache;
    delete process.env['HILO_E2E_CACHE'];
  });
  afterEach(() => {
    for (const [name, value] of [
      ['XDG_CACHE_HOME', saved.xdg],
      ['HILO_E2E_CACHE', saved.off],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(cache, { recursive: true, force: true });
  });

  /** Jest's `--json` output with one result for `file`, its tests in the given states. */
  function results(states: readonly string[]): string {
    const path = join(cache, 'results.json');
    const assertionResults = states.map((status) => ({ status }));
    const status = states.every((s) => s === 'passed') ? 'passed' : 'failed';
    writeFileSync(
      path,
      JSON.stringify({ numPassedTests: 2, testResults: [{ name: join(root, file), status, assertionResults }] }),
    );
    return path;
  }

  it('hashes the inputs the same way twice, and differently per file', () => {
    const key = endToEndInputsHash(file);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(endToEndInputsHash(file)).toBe(key);
    expect(endToEndInputsHash(REMEMBERED[1]!)).not.toBe(key);
  });

  it('finds no pass before one is recorded, and finds one after every test of the file passed', () => {
    expect(rememberedPasses()).toEqual([]);
    const key = endToEndInputsHash(file)!;
    recordPasses(results(['passed', 'passed']), new Map([[file, key]]));
    expect(rememberedPasses()).toEqual([{ file, key, passedAt: expect.any(Number) as number }]);
  });

  it('records nothing when a test of the file failed or was skipped', () => {
    const key = endToEndInputsHash(file)!;
    recordPasses(results(['passed', 'failed']), new Map([[file, key]]));
    recordPasses(results(['passed', 'pending']), new Map([[file, key]]));
    expect(rememberedPasses()).toEqual([]);
  });

  it('does not count a pass recorded under other inputs', () => {
    recordPasses(results(['passed']), new Map([[file, '0'.repeat(64)]]));
    expect(readdirSync(join(cache, 'hilo-e2e'))).toHaveLength(1);
    expect(rememberedPasses()).toEqual([]);
  });

  it('does not count a pass older than a week, nor any pass with HILO_E2E_CACHE=off', () => {
    const key = endToEndInputsHash(file)!;
    recordPasses(results(['passed']), new Map([[file, key]]));
    process.env['HILO_E2E_CACHE'] = 'off';
    expect(rememberedPasses()).toEqual([]);
    delete process.env['HILO_E2E_CACHE'];
    const [record] = readdirSync(join(cache, 'hilo-e2e'));
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    utimesSync(join(cache, 'hilo-e2e', record!), eightDaysAgo, eightDaysAgo);
    expect(rememberedPasses()).toEqual([]);
  });
});
