import { HiLoConfigurationError } from 'hilo-core';
import { quoteIdentifier } from '../src/dialects/index.js';
import { schemaSql } from '../src/operations/schema.js';
import { validateIdentifier } from '../src/sql/identifiers.js';
import { validateSegment } from '../src/engine/segment-name.js';

describe('identifiers', () => {
  it.each(['x"; drop table t; --', 'a`b', "o'brien", '1abc', '', 'a'.repeat(64), 'a b', 'a.b'])(
    'rejects the identifier %j with a message naming it and the pattern',
    (name) => {
      expect(() => validateIdentifier('table', name)).toThrow(HiLoConfigurationError);
      expect(() => validateIdentifier('table', name)).toThrow(/A-Za-z_/);
    },
  );

  it('accepts ordinary names and quotes them per dialect', () => {
    expect(validateIdentifier('table', 'hilo_segments')).toBe('hilo_segments');
    expect(quoteIdentifier('postgres', 'Orders')).toBe('"Orders"');
    expect(quoteIdentifier('mysql', 'orders')).toBe('`orders`');
  });

  it('accepts any printable segment stored as a row value, and refuses empty or control characters', () => {
    expect(validateSegment('x"; drop table t; --')).toBe('x"; drop table t; --');
    expect(() => validateSegment('')).toThrow(HiLoConfigurationError);
    expect(() => validateSegment('a\u0000b')).toThrow(HiLoConfigurationError);
    expect(() => validateSegment('a'.repeat(256))).toThrow(HiLoConfigurationError);
  });

  it('schemaSql escapes segment literals in migration text', () => {
    const [, insert] = schemaSql({ dialect: 'mysql', source: 'table', segments: ["a\\'; drop table t; --"] });
    expect(insert).toContain("'a\\\\''; drop table t; --'");
    expect(() => schemaSql({ dialect: 'postgres', source: 'sequence', segments: ['x"; drop table t; --'] })).toThrow(
      HiLoConfigurationError,
    );
  });
});
