// The ./pnpm wrapper where a new user meets it: `./pnpm test --help` prints before anything is fetched, installed or
// built (it spent 23 s installing first), and packing works from a package's folder (`../../pnpm pack` in
// packages/core failed: the wrapper ran pnpm at the root, whose package.json has no version) and for every
// published package at once (`./pnpm pack:all`).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { published } from './packed.ts';
import { root } from './readme-programs.test-support.ts';

const run = promisify(execFile);
const node = process.execPath;

describe('./pnpm', () => {
  let work = '';
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'hilo-wrapper-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(['test', 'test:quick'])(
    '`./pnpm %s --help` prints the usage at once in a clone with nothing installed, and installs nothing',
    async (command) => {
      // a clone's files the help path can reach, without node_modules, .tools or a pnpm on PATH
      const clone = mkdtempSync(join(work, 'clone-'));
      for (const file of ['pnpm', 'package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'scripts/test.mjs']) {
        mkdirSync(dirname(join(clone, file)), { recursive: true });
        copyFileSync(join(root, file), join(clone, file));
      }
      for (const file of ['build.mjs', 'e2e-records.mjs'])
        copyFileSync(join(root, 'scripts', file), join(clone, 'scripts', file));
      const { stdout, stderr } = await run(join(clone, 'pnpm'), [command, '--help'], {
        cwd: clone,
        env: { ...process.env, PATH: `${dirname(node)}:/usr/bin:/bin` },
      });
      expect(stdout).toMatch(/^Usage:\n {2}\.\/pnpm test /);
      expect(stderr).toBe('');
      // "at once" is what it did not do, not how long it took (issue #52): no Node.js or pnpm fetched, nothing
      // installed; the folder holds only what was copied
      expect(readdirSync(clone).sort()).toEqual([
        'package.json',
        'pnpm',
        'pnpm-lock.yaml',
        'pnpm-workspace.yaml',
        'scripts',
      ]);
    },
  );

  it('`../../pnpm pack` in a package folder packs that package, with its dist/', async () => {
    const destination = join(work, 'one');
    await run(join(root, 'pnpm'), ['pack', '--pack-destination', destination], {
      cwd: join(root, 'packages', 'kysely'),
    });
    const tarballs = readdirSync(destination);
    expect(tarballs).toEqual([expect.stringMatching(/^hilo-kysely-\d+\.\d+\.\d+.*\.tgz$/)]);
    const { stdout } = await run('tar', ['tzf', join(destination, tarballs[0]!)]);
    expect(stdout.split('\n')).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/cjs/index.js']));
  }, 120_000);

  it('`./pnpm pack:all` packs every published package, each with its dist/', async () => {
    const destination = join(work, 'all');
    const { stdout } = await run(join(root, 'pnpm'), ['pack:all', '--destination', destination], { cwd: root });
    const names = readdirSync(destination).map((file) => file.replace(/-\d+\.\d+\.\d+.*\.tgz$/, ''));
    expect(names.sort()).toEqual(published.map((dir) => (dir === 'core' ? 'hilo-core' : `hilo-${dir}`)).sort());
    // after pnpm's script header, one tarball path a line
    const printed = stdout.split('\n').filter((line) => line.endsWith('.tgz'));
    expect(printed).toHaveLength(published.length);
    for (const line of printed) expect(existsSync(line) ? line : `missing: ${line}`).toBe(line);
    for (const file of readdirSync(destination)) {
      const { stdout: files } = await run('tar', ['tzf', join(destination, file)]);
      expect({ file, dist: files.includes('package/dist/') }).toEqual({ file, dist: true });
    }
  }, 180_000);
});
