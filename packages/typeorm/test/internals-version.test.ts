import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InsertQueryBuilder } from 'typeorm';
import { internalsRefusal, loadedTypeOrmVersion, patchKeyLiterals } from '../src/typeorm-internals.js';

// hilo-typeorm replaces TypeORM's private methods only on the releases it was written for and is tested with.
// These tests run in every TypeORM project of jest.config.ts (0.3.0, 0.3.31, 1.0.0 and the workspace's).

const workspaceTypeOrm = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'typeorm', 'package.json');
/** The release this Jest project maps `typeorm` to (a compat project names it), else the workspace's. */
const expected =
  (globalThis as { HILO_TYPEORM_VERSION?: string }).HILO_TYPEORM_VERSION ??
  (JSON.parse(readFileSync(workspaceTypeOrm, 'utf8')) as { version: string }).version;

describe("TypeORM's version gates hilo's use of its internals", () => {
  it(`reads the version of the TypeORM this project loads (${expected}), which hilo knows`, async () => {
    const version = await loadedTypeOrmVersion();
    expect(version).toBe(expected);
    expect(internalsRefusal(version)).toBeUndefined();
  });

  it.each(['0.3.0', '0.3.15', '0.3.20', '0.3.31', '0.3.99', '1.0.0', '1.1.1', '1.9.0', '1.2.0-dev.20270101'])(
    'knows TypeORM %s',
    (version) => {
      expect(internalsRefusal(version)).toBeUndefined();
    },
  );

  it.each(['0.2.45', '0.4.0', '2.0.0', '3.1.0-beta.1', '1.0', 'next', ''])(
    'refuses TypeORM %p, naming it and the known releases',
    (version) => {
      expect(internalsRefusal(version)).toBe(
        `TypeORM ${version} is not a release whose internals hilo-typeorm knows (0.3.x and 1.x)`,
      );
    },
  );

  // 0.3.0 builds each INSERT value inline; every later release of the range has the method the key literals wrap
  const hasValueExpression = expected !== '0.3.0';
  it(
    `${hasValueExpression ? 'has' : 'predates'} InsertQueryBuilder.createColumnValueExpression(valueSets, ` +
      `valueSetIndex, column) in TypeORM ${expected}`,
    () => {
      const method = (InsertQueryBuilder.prototype as unknown as { createColumnValueExpression?: { length: number } })
        .createColumnValueExpression;
      expect(method?.length).toBe(hasValueExpression ? 3 : undefined);
      expect(patchKeyLiterals({ createColumnValueExpression: (one: unknown) => one })).toMatch(
        /no createColumnValueExpression\(valueSets, valueSetIndex, column\) method/,
      );
      expect(patchKeyLiterals(undefined)).toMatch(/TypeORM has no InsertQueryBuilder class/);
    },
  );

  it('refuses when the version cannot be read', () => {
    expect(internalsRefusal(undefined)).toMatch(/cannot read the version of the TypeORM this process loads/);
  });
});
