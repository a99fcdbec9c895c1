#!/usr/bin/env node
// The API report of every public surface: one Markdown file per entry point of each publishable package
// (packages/<folder>/api/<name>.api.md), written by Microsoft's API Extractor from the built .d.ts files.
//
//   ./pnpm api:check    builds if needed, then fails when a report differs from what the code exports (CI, in the
//                       full test tier after the type-check)
//   ./pnpm api:update   builds if needed, then rewrites the reports (and deletes those of entry points that are gone)
//
// The entry points are read from each package.json `exports` (the `import` condition's `types`), so a new entry
// point gets a report by running api:update; a package is publishable when its package.json is not `private`.
// A changed report is reviewed like code: it is the diff users will see between two releases.
// API Extractor analyses with the TypeScript it bundles (6.0 with api-extractor 7.60), reading the declarations the
// workspace's own TypeScript (5.9) wrote; one program serves every entry point, so a check takes seconds.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from './build.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Extractor, ExtractorConfig, CompilerState } = createRequire(import.meta.url)('@microsoft/api-extractor');

/** API Extractor's console messages this script replaces with its own summary. */
const ROUTINE = new Set([
  'console-preamble',
  'console-writing-api-report',
  'console-api-report-not-copied',
  'console-api-report-copied',
  'console-api-report-unchanged',
  'console-api-report-created',
]);

/** The folder, under each package, that holds its reports. */
export const REPORT_FOLDER = 'api';

/**
 * The publishable packages' entry points: `{ folder, name, entry, report }` with `entry` the built .d.ts and
 * `report` the report's file name (`hilo-core.api.md` for `.`, `hilo-core-adapter-kit.api.md` for `./adapter-kit`).
 */
export function entryPoints() {
  const entries = [];
  for (const folder of readdirSync(path.join(root, 'packages')).sort()) {
    const manifestFile = path.join(root, 'packages', folder, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const types = typeof target === 'object' ? (target.import?.types ?? target.types) : undefined;
      if (typeof types !== 'string') continue; // ./package.json
      const suffix = subpath === '.' ? '' : `-${subpath.replace(/^\.\//, '').replaceAll('/', '-')}`;
      entries.push({
        folder,
        name: manifest.name,
        subpath,
        entry: path.join(root, 'packages', folder, types),
        report: `${manifest.name}${suffix}`,
      });
    }
  }
  return entries;
}

function configFor(entry, temp, reportFolder) {
  const projectFolder = path.join(root, 'packages', entry.folder);
  return ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: path.join(projectFolder, 'package.json'),
    configObject: {
      projectFolder,
      mainEntryPointFilePath: entry.entry,
      newlineKind: 'lf',
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.entry],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: reportFolder ?? path.join(projectFolder, REPORT_FOLDER),
        reportTempFolder: temp,
        // types the public API uses without exporting them are part of what users see: the report shows them
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // hilo does not tag releases per declaration (@public/@beta): every export is public
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-wrong-input-file-type': { logLevel: 'error' },
          // a TSDoc {@link} to another entry point's export is fine for readers; it is not an API change
          'ae-unresolved-link': { logLevel: 'none' },
        },
        // TSDoc syntax is ESLint's and review's concern, not the report's
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  });
}

/** How users import an entry point: `hilo-core`, `hilo-core/adapter-kit`. */
function specifier(entry) {
  return entry.subpath === '.' ? entry.name : `${entry.name}${entry.subpath.slice(1)}`;
}

/** A report's path from the repository's root, e.g. `packages/core/api/hilo-core-otel.api.md`. */
export function reportPath(entry) {
  return path.join('packages', entry.folder, REPORT_FOLDER, `${entry.report}.api.md`);
}

/**
 * Runs API Extractor on the entry points (by default every one). `update` rewrites the reports; otherwise returns
 * the entry points whose report differs or is missing (`changed`), those API Extractor could not analyse (`failed`)
 * and, for a run over every entry point, the reports of entry points that no longer exist (`stale`, deleted by an
 * update). `reportFolder` puts the reports elsewhere than `packages/<folder>/api` (for tests).
 * @param {{ update?: boolean, quiet?: boolean, entries?: ReturnType<typeof entryPoints>,
 *   reportFolder?: (entry: ReturnType<typeof entryPoints>[number]) => string }} [options]
 */
export function apiReports({ update = false, quiet = false, entries, reportFolder } = {}) {
  const all = entryPoints();
  const selected = entries ?? all;
  const temp = mkdtempSync(path.join(os.tmpdir(), 'hilo-api-report-'));
  const changed = [];
  const failed = [];
  try {
    // one TypeScript program for every entry point: each package's types are read once, not once per entry point
    let compilerState;
    for (const entry of selected) {
      const config = configFor(entry, temp, reportFolder?.(entry));
      compilerState ??= CompilerState.create(config, { additionalEntryPoints: selected.map((e) => e.entry) });
      if (update) mkdirSync(config.reportFolder, { recursive: true });
      const result = Extractor.invoke(config, {
        localBuild: update,
        compilerState,
        // a check prints what differs, as a diff of the report
        printApiReportDiff: !update && !quiet,
        messageCallback: (message) => {
          // what API Extractor says of every run (its TypeScript version, which report it writes, whether that
          // changed) is said once, by the caller, in hilo's words
          if (quiet || (message.category === 'console' && ROUTINE.has(message.messageId))) message.handled = true;
        },
      });
      if (result.errorCount > 0) failed.push(entry);
      else if (result.apiReportChanged) changed.push(entry);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  const stale = [];
  if (entries === undefined && reportFolder === undefined) {
    const expected = new Set(all.map(reportPath));
    for (const folder of readdirSync(path.join(root, 'packages'))) {
      const reports = path.join(root, 'packages', folder, REPORT_FOLDER);
      if (!existsSync(reports)) continue;
      for (const file of readdirSync(reports)) {
        const relative = path.join('packages', folder, REPORT_FOLDER, file);
        if (!file.endsWith('.api.md') || expected.has(relative)) continue;
        stale.push(relative);
        if (update) rmSync(path.join(root, relative));
      }
      if (update && readdirSync(reports).length === 0) rmSync(reports, { recursive: true });
    }
  }
  return { changed, failed, stale };
}

/**
 * What a failed check says: each report that differs, is missing or is stale, and the one command that fixes it.
 * @param {{ changed: ReturnType<typeof entryPoints>, stale: string[] }} result
 */
export function differenceMessage({ changed, stale }) {
  const lines = [
    ...changed.map(
      (e) =>
        `  ${reportPath(e)}: ${existsSync(path.join(root, reportPath(e))) ? 'differs from' : 'missing for'} ${specifier(e)}`,
    ),
    ...stale.map((s) => `  ${s}: no such entry point any more`),
  ];
  return (
    `api: the public API differs from its checked-in report:\n${lines.join('\n')}\n` +
    'If the change is intended, run `./pnpm api:update` and commit the reports with it: they are the diff users see ' +
    'between releases (add a changeset too: CONTRIBUTING.md, "Releases").'
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  const started = Date.now();
  const built = buildIfChanged();
  if (built.status !== 0) process.exit(built.status);
  const result = apiReports({ update });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.failed.length > 0) {
    const names = result.failed.map(specifier).join(', ');
    console.error(`api: API Extractor could not analyse ${names} (its messages are above)`);
    process.exit(1);
  }
  if (update) {
    const touched = [...result.changed.map(reportPath), ...result.stale.map((s) => `${s} (deleted)`)];
    console.log(
      `api: ${touched.length === 0 ? 'every report was up to date' : `rewrote ${touched.join(', ')}`} (${seconds} s)`,
    );
  } else if (result.changed.length > 0 || result.stale.length > 0) {
    console.error(differenceMessage(result));
    process.exit(1);
  } else {
    console.log(`api: every report matches the code (${entryPoints().length} entry points, ${seconds} s)`);
  }
}
