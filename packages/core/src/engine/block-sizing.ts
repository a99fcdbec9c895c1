/**
 * How many keys a segment's next reservation asks for: its block size, resized toward `adaptiveTargetMs` of
 * consumption between reservations when adaptive sizing is on, and raised to cover callers already waiting.
 */
export class BlockSizing {
  /** The current block size (changes only with adaptive sizing). */
  blockSize: number;
  private readonly minBlockSize: number;
  private lastReservationAt = 0;
  private issuedAtLastReservation = 0;

  /**
   * @param blockSize the configured block size, also the floor of adaptive sizing
   * @param maxBlockSize the ceiling of adaptive sizing and of demand-driven blocks
   * @param targetMs adaptive sizing's target time between reservations (undefined: fixed size)
   */
  constructor(
    blockSize: number,
    private readonly maxBlockSize: number,
    private readonly targetMs: number | undefined,
  ) {
    this.blockSize = blockSize;
    this.minBlockSize = blockSize;
  }

  /**
   * The size to ask for now. `issued` is the segment's keys handed out so far, `waiting` the keys callers are
   * waiting for beyond those in memory; `resized` hears of every change of the block size.
   */
  next(now: number, issued: number, waiting: number, resized: (from: number, to: number) => void): number {
    let size = this.blockSize;
    if (this.targetMs !== undefined && this.lastReservationAt > 0) {
      const elapsed = Math.max(1, now - this.lastReservationAt);
      const used = issued - this.issuedAtLastReservation;
      const ideal = (used / elapsed) * this.targetMs;
      let wanted = this.blockSize;
      if (ideal > this.blockSize) wanted = Math.min(this.blockSize * 8, ideal);
      else if (ideal < this.blockSize / 2) wanted = Math.max(this.blockSize / 2, ideal);
      wanted = Math.min(this.maxBlockSize, Math.max(this.minBlockSize, Math.round(wanted)));
      if (wanted !== this.blockSize) {
        resized(this.blockSize, wanted);
        this.blockSize = wanted;
      }
      size = wanted;
    }
    // callers already waiting (bulk reserve, a burst of next()) get their keys in this round trip
    if (waiting > size) size = Math.min(this.maxBlockSize, waiting);
    return size;
  }

  /** Records a reservation that succeeded at `now`, with `issued` keys handed out by then. */
  reserved(now: number, issued: number): void {
    this.lastReservationAt = now;
    this.issuedAtLastReservation = issued;
  }
}
