/**
 * How many keys a segment's next reservation asks for: first a small block sized for a short-lived process, four
 * times more at each reservation until the block size (DESIGN rule 12); then its block size, resized toward
 * `adaptiveTargetMs` of consumption between reservations when adaptive sizing is on; always raised to cover callers
 * already waiting. A source with a fixed block (a sequence's increment) rounds the request up, never down, so asking
 * for less than it reserves is safe everywhere: it only changes what sources that take any size reserve.
 */
export class BlockSizing {
  /** The current block size (changes only with adaptive sizing). */
  blockSize: number;
  private readonly minBlockSize: number;
  private lastReservationAt = 0;
  private issuedAtLastReservation = 0;
  /** While below {@link blockSize}: the size of the next block of the start-up ramp. */
  private ramp: number | undefined;
  /**
   * Whether the last size asked for was a block of the start-up ramp (smaller than {@link blockSize}, for a process
   * that may write only a few rows), whatever the source rounded it up to.
   */
  rampBlock = false;

  /**
   * @param blockSize the configured block size, also the floor of adaptive sizing
   * @param maxBlockSize the ceiling of adaptive sizing and of demand-driven blocks
   * @param targetMs adaptive sizing's target time between reservations (undefined: fixed size)
   * @param firstBlockSize the first reservation's size, at most `blockSize` (equal: no ramp)
   */
  constructor(
    blockSize: number,
    private readonly maxBlockSize: number,
    private readonly targetMs: number | undefined,
    firstBlockSize: number = blockSize,
  ) {
    this.blockSize = blockSize;
    this.minBlockSize = blockSize;
    if (firstBlockSize < blockSize) this.ramp = firstBlockSize;
  }

  /**
   * The size to ask for now. `issued` is the segment's keys handed out so far, `waiting` the keys callers are
   * waiting for beyond those in memory; `resized` hears of every change of the block size.
   */
  next(now: number, issued: number, waiting: number, resized: (from: number, to: number) => void): number {
    let size = this.blockSize;
    if (this.ramp !== undefined) size = this.ramp;
    else if (this.targetMs !== undefined && this.lastReservationAt > 0) {
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
    // a full block asked for (warm(), a burst) ends the ramp: the process is past its first keys
    if (size >= this.blockSize) this.ramp = undefined;
    this.rampBlock = this.ramp !== undefined;
    return size;
  }

  /** Records a reservation that succeeded at `now`, with `issued` keys handed out by then. */
  reserved(now: number, issued: number): void {
    if (this.ramp !== undefined) this.ramp = this.ramp * 4 >= this.blockSize ? undefined : this.ramp * 4;
    this.lastReservationAt = now;
    this.issuedAtLastReservation = issued;
  }
}
