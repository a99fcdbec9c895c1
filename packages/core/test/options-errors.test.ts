// Bad options get a HiLoConfigurationError naming the option the caller set — never a TypeError, a base
// HiLoError, a silent default for null, an ignored typo, or the name of an option the caller never used.
import { HiLoConfigurationError } from '../src/errors.js';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { memorySource } from '../src/sources/memory-source.js';
import { connect } from '../src/operations/connect.js';
import { createHiLo } from '../src/operations/create-hilo.js';
import { openKeySupply } from '../src/adapter-kit/index.js';
import type { SqlClient } from '../src/sql/sql-client.js';

function configurationError(run: () => unknown): HiLoConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HiLoConfigurationError);
    return error as HiLoConfigurationError;
  }
  throw new Error('expected a HiLoConfigurationError, but nothing was thrown');
}

describe('option errors name what the caller set', () => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect('sqlite::memory:');
  });
  afterAll(async () => {
    await client.close();
  });

  it('reserve() with a negative count is a configuration error, naming `count`', async () => {
    const hilo = createHiLoGenerator({ source: memorySource() });
    await expect(hilo.reserve('a', -1)).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(hilo.reserve('a', -1)).rejects.toThrow(
      /Expected `count` to be an integer from 0 to 100000000, got -1/,
    );
    await hilo.close();
  });

  it('createHiLo({}) names the missing `client` instead of failing with a TypeError', () => {
    expect(configurationError(() => createHiLo({} as never)).message).toMatch(
      /Expected `client` to be a SqlClient.*got undefined/,
    );
    expect(configurationError(() => createHiLo(undefined as never)).message).toMatch(/createHiLo\(\) options/);
  });

  it('null is refused by name rather than read as the default', () => {
    expect(
      configurationError(() => createHiLoGenerator({ source: memorySource(), blockSize: null as never })).message,
    ).toMatch(/Expected `blockSize` to be set or left out \(for its default\), got null/);
    expect(configurationError(() => createHiLo({ client, timeoutMs: null as never })).message).toMatch(
      /`timeoutMs`.*got null/,
    );
  });

  it("a misspelt option is refused by createHiLoGenerator(), createHiLo() and the adapters' key supply, listing the known names", () => {
    expect(
      configurationError(() => createHiLoGenerator({ source: memorySource(), blokSize: 5 } as never)).message,
    ).toMatch(/Unknown option `blokSize` for createHiLoGenerator\(\); expected one of `source`, `blockSize`/);
    expect(configurationError(() => createHiLo({ client, blokSize: 5 } as never)).message).toMatch(
      /Unknown option `blokSize` for createHiLo\(\)/,
    );
    expect(
      configurationError(() => openKeySupply({ url: 'sqlite::memory:', blokSize: 5 } as never, 'hiloKysely()')).message,
    ).toMatch(/Unknown option `blokSize` for hiloKysely\(\)/);
  });

  it('a bad blockSize with the table `hilo` strategy is reported as `blockSize`, the option set, not `increment`', () => {
    const error = configurationError(() => createHiLo({ client, source: 'table', strategy: 'hilo', blockSize: 0 }));
    expect(error.message).toMatch(/Expected `blockSize` to be an integer ≥ 1, got 0/);
    expect(error.message).not.toMatch(/increment/);
  });
});
