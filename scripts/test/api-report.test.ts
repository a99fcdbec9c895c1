// The API reports (scripts/api-report.mjs, packages/*/api) cover every entry point of every publishable package, and
// the check fails, naming `./pnpm api:update`, when a report no longer matches the built types. The full tier runs
// the check itself over every report (scripts/test.mjs); this file proves the check can fail, on one small entry point.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import * as script from '../api-report.mjs';

interface Entry {
  folder: string;
  name: string;
  subpath: string;
  entry: string;
  report: string;
}
interface Result {
  changed: Entry[];
  failed: Entry[];
  stale: string[];
}
const { entryPoints, apiReports, differenceMessage, reportPath } = script as {
  entryPoints(): Entry[];
  apiReports(options: { entries?: Entry[]; reportFolder?: (entry: Entry) => string; quiet?: boolean }): Result;
  differenceMessage(result: Pick<Result, 'changed' | 'stale'>): string;
  reportPath(entry: Entry): string;
};

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('API reports', () => {
  it('have one report per typed entry point of every package that is not private', () => {
    const publishable = readdirSync(join(root, 'packages'))
      .map((folder) => JSON.parse(readFileSync(join(root, 'packages', folder, 'package.json'), 'utf8')))
      .filter((manifest: { private?: boolean }) => manifest.private !== true)
      .map((manifest: { name: string }) => manifest.name)
      .sort();
    const entries = entryPoints();
    expect([...new Set(entries.map((e) => e.name))].sort()).toEqual(publishable);
    expect(entries.filter((e) => e.name === 'hilo-core').map((e) => e.subpath)).toEqual(
      expect.arrayContaining(['.', './adapter-kit', './otel']),
    );
    for (const entry of entries) expect(readFileSync(join(root, reportPath(entry)), 'utf8')).toContain(entry.name);
  });

  it('fail when a report differs from the code, naming the command that rewrites them', () => {
    const entry = entryPoints().find((e) => e.name === 'hilo-kysely' && e.subpath === '.');
    if (!entry) throw new Error('hilo-kysely has no "." entry point');
    const folder = mkdtempSync(join(tmpdir(), 'hilo-api-report-test-'));
    try {
      const copy = join(folder, `${entry.report}.api.md`);
      copyFileSync(join(root, reportPath(entry)), copy);
      const check = () => apiReports({ entries: [entry], reportFolder: () => folder, quiet: true });
      expect(check()).toEqual({ changed: [], failed: [], stale: [] });

      // the report lists a function the built types do not export
      const report = readFileSync(copy, 'utf8');
      expect(report).toContain('// @public\n');
      writeFileSync(
        copy,
        report.replace('// @public\n', '// @public\nexport function notInTheCode(): void;\n\n// @public\n'),
      );
      const result = check();
      expect(result.changed.map((e) => e.report)).toEqual(['hilo-kysely']);
      const message = differenceMessage(result);
      expect(message).toContain(`${reportPath(entry)}: differs from hilo-kysely`);
      expect(message).toContain('./pnpm api:update');

      rmSync(copy);
      expect(check().changed.map((e) => e.report)).toEqual(['hilo-kysely']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
