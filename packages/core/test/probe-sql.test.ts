// Issue 46, item 3: a block of decimal text keys is split by number of digits, so that each piece is one text range
// among strings of one length, where text order is number order.
import { byDigits } from '../src/operations/probe-sql.js';

describe('byDigits', () => {
  it('keeps a block of one length whole', () => {
    expect(byDigits(101n, 200n)).toEqual([{ digits: 3, low: '101', high: '200' }]);
  });

  it('splits a block crossing 9→10, 99→100 and 999→1000, the longest first', () => {
    expect(byDigits(5n, 1004n)).toEqual([
      { digits: 4, low: '1000', high: '1004' },
      { digits: 3, low: '100', high: '999' },
      { digits: 2, low: '10', high: '99' },
      { digits: 1, low: '5', high: '9' },
    ]);
  });

  it('stays exact near 2^63 − 1 and beyond', () => {
    const max = 2n ** 63n - 1n;
    expect(byDigits(max - 9n, max)).toEqual([{ digits: 19, low: String(max - 9n), high: String(max) }]);
    expect(byDigits(999_999_999_999_999_999n, 10n ** 19n + 5n)).toEqual([
      { digits: 20, low: '10000000000000000000', high: '10000000000000000005' },
      { digits: 19, low: '1000000000000000000', high: '9999999999999999999' },
      { digits: 18, low: '999999999999999999', high: '999999999999999999' },
    ]);
  });

  it('starts at 1: keys are positive', () => {
    expect(byDigits(-5n, 3n)).toEqual([{ digits: 1, low: '1', high: '3' }]);
    expect(byDigits(-5n, 0n)).toEqual([]);
  });
});
