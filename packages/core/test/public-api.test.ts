// hilo-core's root is what applications call; everything else is private or at a named subpath. The list is
// spelled out so that adding to the public API is a decision someone makes in a review, not an accident of a
// re-export.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as root from '../src/index.js';
import * as kit from '../src/kit.js';

const packageJson = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8'),
) as {
  exports: Record<string, unknown>;
};

describe("hilo-core's public API", () => {
  // 46: graph loads (issue 55: loadGraph, its three targets, one per database as the clients are, and its error),
  // moveColumn (issue 52, `hilo move`), pgliteClient (issue 54: PGlite's one session is not a pool) and d1Client
  // (issue 54: a Cloudflare D1 binding's statements are asynchronous and it has no interactive transactions)
  it('exports at most 46 runtime names at the root, exactly these', () => {
    const names = Object.keys(root).sort();
    expect(names.length).toBeLessThanOrEqual(46);
    expect(names).toEqual(
      [
        // errors
        'HiLoError',
        'HiLoConfigurationError',
        'HiLoNotReadyError',
        'HiLoSourceUnavailableError',
        'HiLoSourceError',
        'HiLoTimeoutError',
        'HiLoOverflowError',
        'HiLoExhaustedError',
        'HiLoMismatchError',
        'HiLoStoreBehindError',
        'HiLoSynchronousStandbyError',
        'HiLoKeyLimitError',
        'HiLoClosedError',
        'HiLoGraphLoadError',
        // generators and sources
        'createHiLo',
        'createHiLoGenerator',
        'memorySource',
        'connect',
        'pgClient',
        'postgresJsClient',
        'pgliteClient',
        'mysqlClient',
        'mariadbClient',
        'sqliteClient',
        'd1Client',
        'sequenceSource',
        'tableSource',
        'sqlStoredKeys',
        // schema and maintenance (what the CLI runs)
        'schemaSql',
        'ensureSchema',
        'raiseFloor',
        'checkStore',
        'segmentStatus',
        'alterBlockSize',
        'moveColumn',
        'keyGuardSql',
        'ensureKeyGuard',
        // graph loads
        'loadGraph',
        'pgGraphTarget',
        'sqliteGraphTarget',
        'mysqlGraphTarget',
        // sharing a schema with another system
        'efCorePreset',
        'hibernateSequencePreset',
        'hibernateTablePreset',
        'martenPreset',
        'nhibernatePreset',
      ].sort(),
    );
  });

  it("keeps the adapters' shared building blocks at `hilo-core/adapter-kit`, not at the root", () => {
    expect(Object.keys(packageJson.exports)).toEqual(['.', './adapter-kit', './otel', './package.json']);
    for (const name of Object.keys(kit)) expect(Object.keys(root)).not.toContain(name);
    expect(Object.keys(kit)).toEqual(
      expect.arrayContaining(['openKeySupply', 'keyToField', 'segmentOfTable', 'toHiLoError', 'quoteIdentifier']),
    );
  });
});
