// The engine's two state machines (issue #48): their tables in lifecycle.ts are total, the functions that change a
// state refuse what the tables forbid, and CONTRIBUTING.md ("The engine's states") shows the same tables.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nextSegmentState, nextServerState, SEGMENT_TRANSITIONS, SERVER_TRANSITIONS } from '../src/engine/lifecycle.js';

const contributing = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'CONTRIBUTING.md'),
  'utf8',
);

/** The markdown table after `<!-- marker -->`, as rows of cells (header first). */
function tableAfter(marker: string): string[][] {
  const at = contributing.indexOf(`<!-- ${marker} -->`);
  expect(at).toBeGreaterThanOrEqual(0);
  const lines = contributing.slice(at).split('\n').slice(1);
  const rows: string[][] = [];
  for (const line of lines) {
    if (!line.startsWith('|')) break;
    if (/^\|\s*---/.test(line)) continue;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** A transition table as the same rows: header `state \ event, events…`, then one row per state, `—` for null. */
function rowsOf(table: Readonly<Record<string, Readonly<Record<string, string | null>>>>): string[][] {
  const states = Object.keys(table);
  const events = Object.keys(table[states[0]!]!);
  return [
    ['state \\ event', ...events],
    ...states.map((state) => [state, ...events.map((event) => table[state]![event] ?? '—')]),
  ];
}

describe("the engine's states", () => {
  it('CONTRIBUTING.md shows the segment transitions the code has', () => {
    expect(tableAfter('segment-transitions')).toEqual(rowsOf(SEGMENT_TRANSITIONS));
  });

  it('CONTRIBUTING.md shows the server watch transitions the code has', () => {
    expect(tableAfter('server-transitions')).toEqual(rowsOf(SERVER_TRANSITIONS));
  });

  it('every state takes every event or refuses it, and lands on a state of its own table', () => {
    for (const table of [SEGMENT_TRANSITIONS, SERVER_TRANSITIONS] as const) {
      const states = Object.keys(table);
      const events = Object.keys(table[states[0] as keyof typeof table]);
      for (const row of Object.values(table)) {
        expect(Object.keys(row)).toEqual(events);
        for (const to of Object.values(row)) if (to !== null) expect(states).toContain(to);
      }
    }
  });

  it('refused and closed segments hold for good: only close moves a refused one, nothing moves a closed one', () => {
    for (const [event, to] of Object.entries(SEGMENT_TRANSITIONS.closed)) {
      if (event !== 'accept') expect(to).toBe('closed');
    }
    for (const [event, to] of Object.entries(SEGMENT_TRANSITIONS.refused)) {
      if (event !== 'accept') expect(to).toBe(event === 'close' ? 'closed' : 'refused');
    }
    // only a failover leads back to unverified, and only a confirmation out of parked
    for (const [state, row] of Object.entries(SEGMENT_TRANSITIONS)) {
      for (const [event, to] of Object.entries(row)) {
        if (to === 'unverified' && state !== 'unverified') expect(event).toBe('failover');
        if (state === 'parked' && to === 'serving') expect(event).toBe('confirm');
      }
    }
  });

  it('the functions that change a state refuse what the tables forbid, naming the state and the event', () => {
    expect(nextSegmentState('serving', 'park')).toBe('parked');
    expect(() => nextSegmentState('refused', 'accept')).toThrow('a segment in state refused cannot take accept');
    expect(() => nextSegmentState('closed', 'accept')).toThrow('a segment in state closed cannot take accept');
    expect(nextServerState('known', 'suspect')).toBe('unconfirmed');
    expect(() => nextServerState('unknown', 'late')).toThrow('the server watch in state unknown cannot take late');
    expect(() => nextServerState('stopped', 'other')).toThrow('the server watch in state stopped cannot take other');
  });
});
