import { HiLoOverflowError, HiLoSourceError } from 'hilo-core';
import { SegmentBlocks } from '../src/engine/segment-blocks.js';
import { BlockSizing } from '../src/engine/block-sizing.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

describe('SegmentBlocks: the synchronous block state', () => {
  it('hands out keys block after block, in order, and prefetches at the mark of the last block only', () => {
    const blocks = new SegmentBlocks('orders', 0.5);
    let lows = 0;
    const low = () => lows++;
    expect(
      blocks.enqueue(
        [
          { first: 1n, last: 4n },
          { first: 11n, last: 14n },
        ],
        false,
        'test',
      ),
    ).toEqual([]);
    blocks.advanceIfEmpty();
    const keys: (number | bigint)[] = [];
    blocks.takeMany(6, keys, false, low);
    expect(keys).toEqual([1, 2, 3, 4, 11, 12]);
    expect(lows).toBe(1); // 12 is past the mark (half of the last block); the first block had another queued
    expect(blocks.issued()).toBe(6);
    expect(blocks.available()).toBe(2);
    expect(blocks.drain()).toEqual([{ first: 13n, last: 14n }]);
    expect(blocks.available()).toBe(0);
    expect(blocks.take(false, low)).toBeUndefined();
  });

  it('refuses blocks that do not lie above every key in hand, and queues none of them', () => {
    const blocks = new SegmentBlocks('orders', undefined);
    blocks.enqueue([{ first: 1n, last: 10n }], false, 'test');
    blocks.advanceIfEmpty();
    expect(() =>
      blocks.enqueue(
        [
          { first: 20n, last: 29n },
          { first: 5n, last: 9n },
        ],
        false,
        'test',
      ),
    ).toThrow(HiLoSourceError);
    expect(blocks.available()).toBe(10);
    expect(() => blocks.enqueue([], false, 'test')).toThrow(/returned no block/);
    expect(() => blocks.enqueue([{ first: 40n, last: 39n }], false, 'test')).toThrow(/invalid block/);
  });

  it('with number keys, cuts a block at Number.MAX_SAFE_INTEGER and refuses the rest, later blocks included', () => {
    const blocks = new SegmentBlocks('orders', undefined);
    const refused = blocks.enqueue(
      [
        { first: SAFE - 1n, last: SAFE + 1n },
        { first: SAFE + 10n, last: SAFE + 19n },
      ],
      false,
      'test',
    );
    expect(refused).toEqual([
      { first: SAFE + 1n, last: SAFE + 1n },
      { first: SAFE + 10n, last: SAFE + 19n },
    ]);
    blocks.advanceIfEmpty();
    const low = () => undefined;
    expect(blocks.take(false, low)).toBe(Number.MAX_SAFE_INTEGER - 1);
    expect(blocks.take(false, low)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => blocks.take(false, low)).toThrow(HiLoOverflowError);
  });

  it('with bigint keys, serves blocks beyond Number.MAX_SAFE_INTEGER', () => {
    const blocks = new SegmentBlocks('orders', undefined);
    expect(blocks.enqueue([{ first: SAFE + 1n, last: SAFE + 2n }], true, 'test')).toEqual([]);
    blocks.advanceIfEmpty();
    const low = () => undefined;
    expect([blocks.take(true, low), blocks.take(true, low), blocks.take(true, low)]).toEqual([
      SAFE + 1n,
      SAFE + 2n,
      undefined,
    ]);
  });
});

describe('BlockSizing', () => {
  it('keeps the configured size without adaptive sizing, and covers callers already waiting up to the maximum', () => {
    const sizing = new BlockSizing(100, 1000, undefined);
    const resized = () => {
      throw new Error('no resize expected');
    };
    expect(sizing.next(1000, 0, 0, resized)).toBe(100);
    expect(sizing.next(1000, 0, 250, resized)).toBe(250);
    expect(sizing.next(1000, 0, 5000, resized)).toBe(1000);
  });

  it('grows toward the target time between reservations, at most eightfold a step, and shrinks back to the floor', () => {
    const sizing = new BlockSizing(100, 10_000, 1000);
    const changes: [number, number][] = [];
    const resized = (from: number, to: number) => changes.push([from, to]);
    expect(sizing.next(1, 0, 0, resized)).toBe(100); // first reservation: nothing measured yet
    sizing.reserved(1, 0);
    // 10,000 keys in 100 ms is 100,000 per target second: capped at 8 × 100
    expect(sizing.next(101, 10_000, 0, resized)).toBe(800);
    sizing.reserved(101, 10_000);
    // one key in 10 s: shrinks by half, never below the configured 100
    expect(sizing.next(10_101, 10_001, 0, resized)).toBe(400);
    sizing.reserved(10_101, 10_001);
    expect(sizing.next(20_101, 10_002, 0, resized)).toBe(200);
    sizing.reserved(20_101, 10_002);
    expect(sizing.next(30_101, 10_003, 0, resized)).toBe(100);
    expect(changes).toEqual([
      [100, 800],
      [800, 400],
      [400, 200],
      [200, 100],
    ]);
  });
});
