// PostgreSQL's binary COPY format, written by hand so that hilo-core needs no encoding dependency: a header, then per
// row a 16-bit field count and per field a 32-bit length (-1 for NULL) followed by the type's binary `send` form,
// then a 16-bit -1. Types without a binary encoder here make the whole table travel as text COPY instead.
import { BulkValueError } from '../../sql/bulk.js';
import { CopySink } from './copy-sink.js';

/** One column's type as the catalog gave it: the base type (domains resolved) and, for an array, its element's. */
export interface PgColumnType {
  readonly name: string;
  /** The base type's name (`int4`, `_int4` for an array), after resolving domains. */
  readonly type: string;
  /** `e` for an enum (its binary form is its label), else the base type's `typtype`. */
  readonly kind: string;
  /** For an array: the element type's oid (written into every array) and name. */
  readonly elementOid?: number;
  readonly element?: string;
  readonly elementKind?: string;
}

/** Writes one non-null value of a column (without its length). */
type ValueWriter = (sink: CopySink, value: unknown) => void;

const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const PG_EPOCH_DAYS = 10957; // days from 1970-01-01 to 2000-01-01
const MICROS_PER_DAY = 86_400_000_000n;

function integer(bits: 16 | 32 | 64): ValueWriter {
  const max = (1n << BigInt(bits - 1)) - 1n;
  const min = -max - 1n;
  const expected = `an integer from ${min} to ${max} (number, bigint or digits)`;
  return (sink, value) => {
    let n: bigint;
    if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
    else if (typeof value === 'bigint') n = value;
    else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) n = BigInt(value.trim());
    else throw new BulkValueError(expected, value);
    if (n < min || n > max) throw new BulkValueError(expected, value);
    if (bits === 16) sink.int16(Number(n));
    else if (bits === 32) sink.int32(Number(n));
    else sink.int64(n);
  };
}

function float(bits: 32 | 64): ValueWriter {
  return (sink, value) => {
    let n = Number.NaN;
    if (typeof value === 'number') n = value;
    else if (typeof value === 'string' && value.trim() !== '')
      n = Number(value.trim().replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));
    if (Number.isNaN(n) && !(typeof value === 'number' || (typeof value === 'string' && /^\s*nan\s*$/i.test(value)))) {
      throw new BulkValueError('a number (or NaN, Infinity)', value);
    }
    if (bits === 32) sink.float32(n);
    else sink.float64(n);
  };
}

const NUMERIC_POS = 0x0000;
const NUMERIC_NEG = 0x4000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;
const NUMERIC_TEXT = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/** numeric's binary form: digit count, weight, sign and display scale, then base-10000 digits. */
const numeric: ValueWriter = (sink, value) => {
  const text = typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
  const expected = 'a number, bigint or decimal string (NaN and ±Infinity allowed)';
  if (typeof text !== 'string') throw new BulkValueError(expected, value);
  const special = { nan: NUMERIC_NAN, infinity: NUMERIC_PINF, '+infinity': NUMERIC_PINF, '-infinity': NUMERIC_NINF };
  const sign = special[text.trim().toLowerCase() as keyof typeof special];
  if (sign !== undefined) {
    sink.int16(0);
    sink.int16(0);
    sink.uint16(sign);
    sink.int16(0);
    return;
  }
  const match = NUMERIC_TEXT.exec(text);
  if (match === null || (match[2] === '' && (match[3] ?? '') === '')) throw new BulkValueError(expected, value);
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  let digits = whole + fraction;
  let point = whole.length + exponent;
  const scale = Math.max(0, digits.length - point);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const intPart = digits.slice(0, point);
  const fracPart = digits.slice(point);
  const left = intPart.padStart(Math.ceil(intPart.length / 4) * 4, '0');
  const right = fracPart.padEnd(Math.ceil(fracPart.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < left.length; i += 4) groups.push(Number(left.slice(i, i + 4)));
  for (let i = 0; i < right.length; i += 4) groups.push(Number(right.slice(i, i + 4)));
  let weight = left.length / 4 - 1;
  let start = 0;
  while (start < groups.length && groups[start] === 0) {
    start += 1;
    weight -= 1;
  }
  let end = groups.length;
  while (end > start && groups[end - 1] === 0) end -= 1;
  const kept = groups.slice(start, end);
  sink.int16(kept.length);
  sink.int16(kept.length === 0 ? 0 : weight);
  sink.uint16(kept.length > 0 && match[1] === '-' ? NUMERIC_NEG : NUMERIC_POS);
  sink.int16(scale);
  for (const group of kept) sink.int16(group);
};

function text(expected = 'a string'): ValueWriter {
  return (sink, value) => {
    if (typeof value === 'string') sink.utf8(value);
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
      sink.utf8(String(value));
    } else throw new BulkValueError(expected, value);
  };
}

const bool: ValueWriter = (sink, value) => {
  if (typeof value !== 'boolean') throw new BulkValueError('a boolean', value);
  sink.int8(value ? 1 : 0);
};

const bytea: ValueWriter = (sink, value) => {
  if (!(value instanceof Uint8Array)) throw new BulkValueError('a Buffer or Uint8Array', value);
  sink.bytes(value);
};

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const uuid: ValueWriter = (sink, value) => {
  if (typeof value !== 'string' || !UUID.test(value)) throw new BulkValueError('a UUID string', value);
  sink.bytes(Buffer.from(value.replaceAll('-', ''), 'hex'));
};

/** Days from 1970-01-01 to the proleptic Gregorian date y-m-d (exact for every year). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const DATE_TEXT = /^\s*(-?\d{4,})-(\d{2})-(\d{2})\s*$/;
const TIMESTAMP_TEXT =
  /^\s*(-?\d{4,})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$/i;

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const next = month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1);
  return day <= next - daysFromCivil(year, month, 1);
}

const date: ValueWriter = (sink, value) => {
  const expected = "a Date (its UTC day) or a 'YYYY-MM-DD' string";
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new BulkValueError(expected, value);
    sink.int32(Math.floor(value.getTime() / 86_400_000) - PG_EPOCH_DAYS);
    return;
  }
  if (value === 'infinity' || value === '-infinity') {
    sink.int32(value === 'infinity' ? 0x7fffffff : -0x80000000);
    return;
  }
  const match = typeof value === 'string' ? DATE_TEXT.exec(value) : null;
  if (match === null) throw new BulkValueError(expected, value);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!validDate(year, month, day)) throw new BulkValueError(expected, value);
  sink.int32(daysFromCivil(year, month, day) - PG_EPOCH_DAYS);
};

/** timestamp(tz)'s binary form: microseconds since 2000-01-01 00:00 (UTC for timestamptz). */
function timestamp(withZone: boolean): ValueWriter {
  const expected = withZone
    ? "a Date or an ISO string with a zone ('2024-05-01T10:00:00.123456Z', '…+02:00')"
    : "a Date (its UTC time) or an ISO string ('2024-05-01 10:00:00.123456')";
  return (sink, value) => {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new BulkValueError(expected, value);
      sink.int64(BigInt(value.getTime() - PG_EPOCH_MS) * 1000n);
      return;
    }
    if (value === 'infinity' || value === '-infinity') {
      sink.int64(value === 'infinity' ? 0x7fffffffffffffffn : -0x8000000000000000n);
      return;
    }
    const match = typeof value === 'string' ? TIMESTAMP_TEXT.exec(value) : null;
    if (match === null) throw new BulkValueError(expected, value);
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const [hour, minute, second] = [Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0)];
    if (!validDate(year, month, day) || hour > 24 || minute > 59 || second > 60) {
      throw new BulkValueError(expected, value);
    }
    const zone = match[8];
    if (withZone && zone === undefined) throw new BulkValueError(expected, value);
    let offsetMinutes = 0;
    // timestamp without time zone ignores a zone, as PostgreSQL's own input does
    if (withZone && zone !== undefined && zone.toUpperCase() !== 'Z') {
      const digits = zone.slice(1).replace(':', '');
      offsetMinutes =
        (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * (zone.startsWith('-') ? -1 : 1);
    }
    const micros = BigInt((match[7] ?? '').padEnd(6, '0'));
    const days = BigInt(daysFromCivil(year, month, day) - PG_EPOCH_DAYS);
    const seconds = BigInt(hour * 3600 + minute * 60 + second - offsetMinutes * 60);
    sink.int64(days * MICROS_PER_DAY + seconds * 1_000_000n + micros);
  };
}

/** `JSON.rawJSON` (Node.js 21+): a bigint inside a JSON value is written as the number it is. */
const rawJson = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  const out = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? (rawJson?.(v.toString()) ?? v.toString()) : v,
  );
  if (typeof out !== 'string') throw new BulkValueError('a JSON value or JSON text', value);
  return out;
}

const json: ValueWriter = (sink, value) => {
  sink.utf8(jsonText(value));
};

const jsonb: ValueWriter = (sink, value) => {
  sink.int8(1); // jsonb's binary format version
  sink.utf8(jsonText(value));
};

/** The binary encoder of each built-in type hilo writes itself; anything else travels as text COPY. */
const BINARY: Readonly<Record<string, ValueWriter>> = {
  int2: integer(16),
  int4: integer(32),
  int8: integer(64),
  float4: float(32),
  float8: float(64),
  numeric,
  text: text(),
  varchar: text(),
  bpchar: text(),
  name: text(),
  bool,
  bytea,
  uuid,
  date,
  timestamp: timestamp(false),
  timestamptz: timestamp(true),
  json,
  jsonb,
};

function scalarWriter(type: string, kind: string | undefined): ValueWriter | undefined {
  // an enum's binary form is its label
  return kind === 'e' ? text('one of the enum labels, as a string') : BINARY[type];
}

/** The lengths of each dimension of a (possibly nested) array, refusing ragged ones. */
function dimensionsOf(value: readonly unknown[], nests: boolean): number[] {
  const dims: number[] = [];
  let level: unknown = value;
  while (Array.isArray(level)) {
    dims.push(level.length);
    if (!nests || level.length === 0) break;
    level = level[0];
  }
  return dims;
}

function arrayWriter(elementOid: number, element: ValueWriter, nests: boolean): ValueWriter {
  return (sink, value) => {
    if (!Array.isArray(value)) throw new BulkValueError('an array', value);
    const dims = dimensionsOf(value, nests);
    if (dims.includes(0)) {
      // an empty array has no dimensions at all
      sink.int32(0);
      sink.int32(0);
      sink.int32(elementOid);
      return;
    }
    const flagsAt = sink.length + 4;
    sink.int32(dims.length);
    sink.int32(0);
    sink.int32(elementOid);
    for (const size of dims) {
      sink.int32(size);
      sink.int32(1);
    }
    let hasNull = false;
    const walk = (items: readonly unknown[], depth: number): void => {
      if (items.length !== dims[depth])
        throw new BulkValueError('a rectangular array (every sub-array as long)', value);
      for (const item of items) {
        if (depth + 1 < dims.length) {
          if (!Array.isArray(item)) throw new BulkValueError('a rectangular array', value);
          walk(item, depth + 1);
        } else if (item === null || item === undefined) {
          hasNull = true;
          sink.int32(-1);
        } else {
          if (nests && Array.isArray(item)) throw new BulkValueError('a rectangular array', value);
          const at = sink.startLength();
          element(sink, item);
          sink.endLength(at);
        }
      }
    };
    walk(value, 0);
    if (hasNull) {
      const end = sink.length;
      sink.length = flagsAt;
      sink.int32(1);
      sink.length = end;
    }
  };
}

/** The binary writer of a column, or `undefined` when its type has none here (the table then goes as text). */
export function binaryWriter(column: PgColumnType): ValueWriter | undefined {
  if (column.elementOid !== undefined && column.element !== undefined) {
    const element = scalarWriter(column.element, column.elementKind);
    if (element === undefined) return undefined;
    // JSON elements may be arrays themselves: only their outer array is PostgreSQL's
    return arrayWriter(column.elementOid, element, column.element !== 'json' && column.element !== 'jsonb');
  }
  return scalarWriter(column.type, column.kind);
}

const BINARY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** Encodes rows in PostgreSQL's binary COPY format, one writer per column. */
export class BinaryRowEncoder {
  constructor(private readonly writers: readonly ValueWriter[]) {}

  header(sink: CopySink): void {
    sink.bytes(BINARY_SIGNATURE);
    sink.int32(0);
    sink.int32(0);
  }

  /** Encodes one row; on a value it cannot write, drops what it wrote of the row and throws (with `column` set). */
  row(sink: CopySink, values: readonly unknown[]): void {
    const mark = sink.length;
    sink.int16(this.writers.length);
    for (let i = 0; i < this.writers.length; i++) {
      const value = values[i];
      if (value === null || value === undefined) {
        sink.int32(-1);
        continue;
      }
      const at = sink.startLength();
      try {
        this.writers[i]!(sink, value);
      } catch (error) {
        sink.truncate(mark);
        if (error instanceof BulkValueError) error.columnIndex = i;
        throw error;
      }
      sink.endLength(at);
    }
  }

  trailer(sink: CopySink): void {
    sink.int16(-1);
  }
}

// ---- text COPY, for tables with a column of a type the binary encoders do not cover -------------------------

function arrayLiteral(value: readonly unknown[]): string {
  const items = value.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item)) return arrayLiteral(item);
    const text = textValue(item);
    return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/** A value in PostgreSQL's text input form (before COPY's own escaping). */
function textValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  return jsonText(value);
}

const COPY_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Encodes rows in PostgreSQL's text COPY format (tab-separated, `\N` for NULL). */
export class TextRowEncoder {
  /** `json` columns take a JS array as JSON, not as a PostgreSQL array. */
  constructor(private readonly jsonColumns: readonly boolean[]) {}

  header(): void {}

  row(sink: CopySink, values: readonly unknown[]): void {
    const fields = this.jsonColumns.map((isJson, i) => {
      const value = values[i];
      if (value === null || value === undefined) return '\\N';
      const text = isJson ? jsonText(value) : textValue(value);
      return text.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!);
    });
    sink.utf8(`${fields.join('\t')}\n`);
  }

  trailer(): void {}
}
