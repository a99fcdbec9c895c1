// `retryable` tells the truth (issue #48): true exactly when trying the same call again can cure the error. One
// decision per code in HiLoErrorCode, checked against each class's constructor and against the README's table, so a
// code added without a decision fails here (and `satisfies` fails the typecheck).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  HiLoClosedError,
  HiLoConfigurationError,
  HiLoExhaustedError,
  HiLoGraphLoadError,
  HiLoKeyLimitError,
  HiLoMismatchError,
  HiLoNotReadyError,
  HiLoOverflowError,
  HiLoServerUnconfirmedError,
  HiLoSourceError,
  HiLoSourceUnavailableError,
  HiLoStoreBehindError,
  HiLoSynchronousStandbyError,
  HiLoTimeoutError,
  type HiLoError,
  type HiLoErrorCode,
} from '../src/errors.js';

const core = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `yes`/`no` for every error of the code; `varies` where the thrower knows which (each case says what it set). */
type Rule = 'yes' | 'no' | 'varies';

interface Decision {
  readonly rule: Rule;
  /** Errors of the code as hilo builds them, each with the flag it must carry. */
  readonly cases: readonly (readonly [error: HiLoError, retryable: boolean])[];
}

const block = { first: 1n, last: 10n };
const place = { table: 'orders', item: 3, key: 42, column: undefined };

const DECISIONS = {
  HILO_CONFIGURATION: { rule: 'no', cases: [[new HiLoConfigurationError('bad option'), false]] },
  HILO_NOT_READY: { rule: 'yes', cases: [[new HiLoNotReadyError('orders'), true]] },
  HILO_SOURCE_UNAVAILABLE: { rule: 'yes', cases: [[new HiLoSourceUnavailableError('connection refused'), true]] },
  HILO_SOURCE_FAILED: {
    rule: 'varies',
    cases: [
      [new HiLoSourceError('relation "hilo" does not exist'), false],
      [new HiLoSourceError('deadlock', { conflict: true }), true],
      [new HiLoSourceError('named lock held', { retryable: true }), true],
      [new HiLoSourceError('move the store by hand', { retryable: false }), false],
    ],
  },
  HILO_TIMEOUT: { rule: 'yes', cases: [[new HiLoTimeoutError('took longer than timeoutMs'), true]] },
  HILO_OVERFLOW: { rule: 'no', cases: [[new HiLoOverflowError('past MAX_SAFE_INTEGER'), false]] },
  HILO_EXHAUSTED: { rule: 'no', cases: [[new HiLoExhaustedError('every retry failed'), false]] },
  HILO_MISMATCH: { rule: 'no', cases: [[new HiLoMismatchError('INCREMENT BY differs'), false]] },
  HILO_STORE_BEHIND: {
    rule: 'no',
    cases: [
      [
        new HiLoStoreBehindError({ segment: 'a', table: 't', column: 'id', block, storedKey: 5n, source: 'memory' }),
        false,
      ],
    ],
  },
  HILO_KEY_LIMIT: { rule: 'no', cases: [[new HiLoKeyLimitError('a', 10n, 11n), false]] },
  HILO_NO_SYNC_STANDBY: {
    rule: 'varies',
    cases: [
      [new HiLoSynchronousStandbyError('the server lists none.', { retryable: true }), true],
      [new HiLoSynchronousStandbyError('a reason no wait cures.'), false],
    ],
  },
  HILO_SERVER_UNCONFIRMED: { rule: 'yes', cases: [[new HiLoServerUnconfirmedError('in recovery'), true]] },
  HILO_CLOSED: { rule: 'no', cases: [[new HiLoClosedError(), false]] },
  HILO_GRAPH_LOAD: {
    rule: 'varies',
    cases: [
      [new HiLoGraphLoadError(place, 'violates foreign key constraint'), false],
      [new HiLoGraphLoadError(place, 'connection terminated', { retryable: true }), true],
    ],
  },
} as const satisfies Record<HiLoErrorCode, Decision>;

/** The codes of the `HiLoErrorCode` union, read from errors.ts (a type leaves nothing to enumerate at run time). */
function codesInUnion(): string[] {
  const text = readFileSync(join(core, 'src', 'errors.ts'), 'utf8');
  const union = /export type HiLoErrorCode =([^;]+);/.exec(text);
  if (union === null) throw new Error('errors.ts declares no HiLoErrorCode union');
  return [...union[1]!.matchAll(/'(HILO_[A-Z_]+)'/g)].map((m) => m[1]!);
}

/** The README's "Which errors a retry can cure" table: code → the first word of its `retryable` column. */
function readmeRules(): Map<string, string> {
  const text = readFileSync(join(core, 'README.md'), 'utf8');
  const start = text.indexOf('### Which errors a retry can cure');
  if (start < 0) throw new Error('the README has no "Which errors a retry can cure" section');
  const section = text.slice(start, text.indexOf('\n#', start + 1));
  return new Map([...section.matchAll(/^\|\s*`(HILO_[A-Z_]+)`\s*\|\s*(\w+)\s*\|/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('retryable, per error code', () => {
  const decisions: Readonly<Record<string, Decision>> = DECISIONS;

  it('has a decision for every code of HiLoErrorCode, and none for a code that does not exist', () => {
    expect(Object.keys(decisions).sort()).toEqual(codesInUnion().sort());
  });

  it.each(Object.entries(decisions))('%s: every error carries the flag its decision gives', (code, decision) => {
    expect(decision.cases.length).toBeGreaterThan(0);
    for (const [error, retryable] of decision.cases) {
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(retryable);
    }
    const flags = new Set(decision.cases.map(([, retryable]) => retryable));
    if (decision.rule === 'yes') expect([...flags]).toEqual([true]);
    if (decision.rule === 'no') expect([...flags]).toEqual([false]);
    // a code whose flag varies shows both, so the option really reaches the flag
    if (decision.rule === 'varies') expect([...flags].sort()).toEqual([false, true]);
  });

  it('is documented per code in the README, with the same decision', () => {
    const documented = readmeRules();
    expect([...documented.keys()].sort()).toEqual(Object.keys(decisions).sort());
    for (const [code, decision] of Object.entries(decisions))
      expect([code, documented.get(code)]).toEqual([code, decision.rule]);
  });

  it('keeps HiLoSourceError not retryable unless its thrower says a retry can cure it', () => {
    expect(new HiLoSourceError('x', { hint: { library: 'fix it', cli: 'fix it' } }).retryable).toBe(false);
    // a conflict is retryable whatever else is passed: another transaction won this try, not the next
    expect(new HiLoSourceError('x', { conflict: true, retryable: false }).retryable).toBe(true);
  });
});
