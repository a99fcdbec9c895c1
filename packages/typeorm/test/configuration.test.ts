import 'reflect-metadata';
import { HiLoConfigurationError, HiLoOverflowError } from 'hilo-core';
import { HiLoGeneratedColumn, hiloBigIntKeyTransformer, hiloKeyTransformer, withHiLo } from 'hilo-typeorm';
import { DataSource } from 'typeorm';

describe('@HiLoGeneratedColumn(): options are checked when the class is declared', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'a zero block size',
      { blockSize: 0 },
      /`@HiLoGeneratedColumn\(\) blockSize` to be an integer from 1 to 2147483647, got 0/,
    ],
    ['a fractional block size', { blockSize: 2.5 }, /got 2\.5/],
    ['an unknown key type', { keyType: 'string' }, /keyType` to be "number" or "bigint", got "string"/],
    ['an empty segment', { segment: '' }, /segment` to be a non-empty name/],
    ['a text column type', { type: 'varchar' }, /type` to be "bigint", "int" or "integer", got "varchar"/],
    [
      'bigint keys in an int column',
      { keyType: 'bigint', type: 'int' },
      /keyType "bigint" needs a bigint column, got type "int"/,
    ],
    ['a misspelt option', { blocksize: 10 }, /Unknown option `blocksize`/],
  ];
  it.each(cases)('rejects %s', (_name, options, message) => {
    const declare = () => {
      class Broken {
        @HiLoGeneratedColumn(options as never) id!: number;
      }
      return Broken;
    };
    expect(declare).toThrow(HiLoConfigurationError);
    expect(declare).toThrow(message);
  });

  it('accepts the defaults without emitDecoratorMetadata types', () => {
    expect(() => {
      class Fine {
        @HiLoGeneratedColumn({ segment: 'fine', blockSize: 10, keyType: 'bigint' }) id!: bigint;
      }
      return Fine;
    }).not.toThrow();
  });
});

describe('installHiLo()/withHiLo(): options are checked before connecting', () => {
  it('rejects an unknown option naming it', () => {
    const dataSource = new DataSource({ type: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none', entities: [] });
    expect(() => withHiLo(dataSource, { blocksize: 10 } as never)).toThrow(
      /Unknown option `blocksize` for installHiLo\(\)/,
    );
    expect(() => withHiLo(dataSource, { saveWithoutSelect: 'no' as never })).toThrow(
      /Expected `saveWithoutSelect` to be true or false, got "no"/,
    );
    expect(() => withHiLo(dataSource, { source: 'sequences' as never })).toThrow(
      /Expected `source` to be "sequence", "table" or a function \(client\) => HiSource, got "sequences"/,
    );
  });
});

describe('key transformers', () => {
  it('reads bigint columns (strings from the driver) as numbers or bigints', () => {
    expect(hiloKeyTransformer.from('42')).toBe(42);
    expect(hiloKeyTransformer.from(42)).toBe(42);
    expect(hiloKeyTransformer.from(null)).toBeNull();
    expect(hiloBigIntKeyTransformer.from('9223372036854775807')).toBe(9223372036854775807n);
    expect(hiloBigIntKeyTransformer.to(5n)).toBe('5');
    expect(hiloKeyTransformer.to(5)).toBe(5);
  });

  it('refuses to read a key beyond Number.MAX_SAFE_INTEGER as a number', () => {
    expect(() => hiloKeyTransformer.from('9007199254740993')).toThrow(HiLoOverflowError);
    expect(() => hiloKeyTransformer.from('9007199254740993')).toThrow(/keyType: 'bigint'/);
  });
});
