#!/usr/bin/env node
// Runs `prisma generate` for the given schemas (default: test/prisma/*.prisma) without network access.
// `--cli-from DIR` runs the Prisma CLI installed for DIR instead of hilo-prisma's own (packages/prisma-compat
// generates with the oldest Prisma of the peer range this way).
// Prisma's CLI insists on a schema-engine binary even though `generate` never starts it, and would download
// one; pointing PRISMA_SCHEMA_ENGINE_BINARY at a stub that only explains itself keeps generation offline.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
let schemas = process.argv.slice(2);
let cliFrom = import.meta.url;
const cliFlag = schemas.indexOf('--cli-from');
if (cliFlag !== -1) {
  cliFrom = path.join(path.resolve(schemas[cliFlag + 1]), 'package.json');
  schemas.splice(cliFlag, 2);
}
const prismaCli = createRequire(cliFrom).resolve('prisma/build/index.js');
// `--no-hints` quiets Prisma 7's tips; Prisma 6's CLI does not know the flag, so it would fall back to its Rust
// query engine and try to download it
const cliMajor = Number.parseInt(
  JSON.parse(readFileSync(path.join(path.dirname(prismaCli), '..', 'package.json'), 'utf8')).version,
  10,
);
const quiet = cliMajor >= 7 ? ['--no-hints'] : [];
if (schemas.length === 0) {
  const dir = path.join(here, '..', 'test', 'prisma');
  schemas = readdirSync(dir)
    .filter((f) => f.endsWith('.prisma'))
    .map((f) => path.join(dir, f));
}

const stubDir = mkdtempSync(path.join(tmpdir(), 'hilo-prisma-'));
const stub = path.join(stubDir, 'schema-engine');
writeFileSync(
  stub,
  '#!/bin/sh\necho "schema engine stub (hilo-prisma scripts/generate.mjs): migrate and db push are not available" >&2\nexit 1\n',
);
chmodSync(stub, 0o755);

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? stub,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
let failed = false;
try {
  for (const schema of schemas) {
    const r = spawnSync(process.execPath, [prismaCli, 'generate', ...quiet, '--schema', schema], {
      env,
      stdio: 'inherit',
    });
    if (r.status !== 0) {
      process.stderr.write(`prisma generate failed for ${schema}\n`);
      failed = true;
      break;
    }
  }
} finally {
  rmSync(stubDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
