/** A growable byte buffer the COPY encoders write into; flushed in chunks of about `chunkBytes`. */
export class CopySink {
  private buffer: Buffer;
  /** Bytes written since the last `take()`. */
  length = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** Makes room for `bytes` more bytes. */
  room(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  int8(value: number): void {
    this.room(1);
    this.buffer.writeInt8(value, this.length);
    this.length += 1;
  }

  int16(value: number): void {
    this.room(2);
    this.buffer.writeInt16BE(value, this.length);
    this.length += 2;
  }

  uint16(value: number): void {
    this.room(2);
    this.buffer.writeUInt16BE(value, this.length);
    this.length += 2;
  }

  int32(value: number): void {
    this.room(4);
    this.buffer.writeInt32BE(value, this.length);
    this.length += 4;
  }

  int64(value: bigint): void {
    this.room(8);
    this.buffer.writeBigInt64BE(value, this.length);
    this.length += 8;
  }

  float32(value: number): void {
    this.room(4);
    this.buffer.writeFloatBE(value, this.length);
    this.length += 4;
  }

  float64(value: number): void {
    this.room(8);
    this.buffer.writeDoubleBE(value, this.length);
    this.length += 8;
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  /** Writes `value` as UTF-8 and returns how many bytes it took. */
  utf8(value: string): number {
    this.room(value.length * 3);
    const written = this.buffer.write(value, this.length, 'utf8');
    this.length += written;
    return written;
  }

  /** Reserves a 4-byte length here; `endLength` fills it with the bytes written after it. */
  startLength(): number {
    this.room(4);
    const at = this.length;
    this.length += 4;
    return at;
  }

  endLength(at: number): void {
    this.buffer.writeInt32BE(this.length - at - 4, at);
  }

  /** Drops everything written after `mark` (a row that failed to encode half-way). */
  truncate(mark: number): void {
    this.length = mark;
  }

  /** The bytes written so far (a view, valid until the next write), and starts over. */
  take(): Buffer {
    const out = this.buffer.subarray(0, this.length);
    this.length = 0;
    return out;
  }
}
