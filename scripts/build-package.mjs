#!/usr/bin/env node
// Builds the package in the current directory twice from the same sources:
//   dist/      ESM (the package is "type": "module"), with .d.ts
//   dist/cjs/  CommonJS, with .d.ts, marked by dist/cjs/package.json {"type":"commonjs"}
// so `require` (CommonJS apps, ts-jest, TypeScript module commonjs/node16) and `import` both get a build and
// types of their own format. Files named in package.json `bin` are ESM-only (they may use top-level await)
// and are left out of the CommonJS build.
// Use in a package: "build": "node ../../scripts/build-package.mjs" (see scripts/README-packaging.md).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const cwd = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function run(project) {
  const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

rmSync(path.join(cwd, 'dist'), { recursive: true, force: true });
run('tsconfig.build.json');

const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
const exported = JSON.stringify(pkg.exports ?? {});
const esmOnly = bins
  .filter((b) => !exported.includes(`"${b}"`))
  .map((b) => b.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
const cjsConfig = path.join(cwd, 'tsconfig.build.cjs.tmp.json');
writeFileSync(
  cjsConfig,
  JSON.stringify({
    extends: './tsconfig.build.json',
    compilerOptions: {
      outDir: 'dist/cjs',
      module: 'CommonJS',
      moduleResolution: 'Node10',
      // verbatimModuleSyntax forbids `import` syntax in a CommonJS output; the ESM build keeps the check
      verbatimModuleSyntax: false,
      declarationMap: false,
    },
    exclude: esmOnly,
  }),
);
try {
  run(cjsConfig);
} finally {
  rmSync(cjsConfig, { force: true });
}
mkdirSync(path.join(cwd, 'dist', 'cjs'), { recursive: true });
writeFileSync(path.join(cwd, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
