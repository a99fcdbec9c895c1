// Every state of the engine that decides whether a key may be handed out, and every transition between them, in
// one place (issue #48). Two machines: the server watch's, one per generator (is hilo still on the server the keys
// in memory were reserved on?), and each segment's (may its keys in memory be handed out?). The server's
// transitions drive the segments': parking, confirming and a failover reach every segment of the generator.
// CONTRIBUTING.md ("The engine's states") shows the same tables; a test checks that the two agree.

/**
 * Where a segment is in its life, as `generator.stats()[segment].state` reports it:
 *
 * - `unverified`: no block accepted on the server hilo is on now (at first, and again after a failover). It holds
 *   no key. Its next reservation reads the largest stored key first (with `storedKeys`) and, after a failover, must
 *   lie above every key reserved before (its floor).
 * - `serving`: its keys in memory came from the server hilo is on, as far as hilo can tell: they are handed out.
 * - `parked`: the server is unconfirmed (hilo's connection failed, or a check is slow): its keys in memory are kept
 *   aside, not handed out, until a check answers. The same server gives them back; another one discards them.
 * - `refused`: a peer sharing the store reads it with other settings (an interop preset's mismatch). For good: it
 *   holds no key and every call rejects with the peer's mismatch error.
 * - `closed`: the generator closed. It holds no key; every call rejects with `HiLoClosedError`.
 *
 * Reaching the key column's `maxKey` (or Number.MAX_SAFE_INTEGER with number keys) is not a state: it is where the
 * segment's blocks end, in any state; the keys below it are handed out, then every call rejects with the limit.
 */
export type SegmentState = 'unverified' | 'serving' | 'parked' | 'refused' | 'closed';

/**
 * What happens to a segment:
 *
 * - `accept`: a reservation's blocks passed every check and are kept (they lie above the floor; the store was read).
 * - `park`: the server became unconfirmed.
 * - `confirm`: the server the keys were reserved on answered again (or the source said it can never tell).
 * - `failover`: hilo found itself on another server: every key in memory or parked is discarded.
 * - `refuse`: a peer sharing the store was found reading it with other settings.
 * - `close`: the generator closes.
 */
export type SegmentEvent = 'accept' | 'park' | 'confirm' | 'failover' | 'refuse' | 'close';

/**
 * The segment's transitions: `SEGMENT_TRANSITIONS[state][event]` is the state after `event`. `null` marks an
 * event the state never takes: blocks reaching a `refused` or `closed` segment are discarded (reported lost)
 * before they could be accepted. A block accepted while the server is unconfirmed is accepted, then parked with
 * the rest (`accept`, then `park`), so that the check decides for all of them.
 */
export const SEGMENT_TRANSITIONS: {
  readonly [S in SegmentState]: { readonly [E in SegmentEvent]: SegmentState | null };
} = {
  unverified: {
    accept: 'serving',
    park: 'unverified',
    confirm: 'unverified',
    failover: 'unverified',
    refuse: 'refused',
    close: 'closed',
  },
  serving: {
    accept: 'serving',
    park: 'parked',
    confirm: 'serving',
    failover: 'unverified',
    refuse: 'refused',
    close: 'closed',
  },
  parked: {
    accept: 'parked',
    park: 'parked',
    confirm: 'serving',
    failover: 'unverified',
    refuse: 'refused',
    close: 'closed',
  },
  refused: {
    accept: null,
    park: 'refused',
    confirm: 'refused',
    failover: 'refused',
    refuse: 'refused',
    close: 'closed',
  },
  closed: { accept: null, park: 'closed', confirm: 'closed', failover: 'closed', refuse: 'closed', close: 'closed' },
};

/**
 * The state of the server watch (one per generator):
 *
 * - `unknown`: no reservation or check has said which server hilo reaches yet (or the source cannot tell servers
 *   apart at all: then it stays here, and failovers go unnoticed, as the README says per database).
 * - `known`: the keys in memory were reserved on the server hilo reaches now, as far as hilo can tell.
 * - `unconfirmed`: hilo's own connection failed, or a check did not answer at once: segments are parked until a
 *   check answers.
 * - `stopped`: the generator closed; nothing is checked any more.
 */
export type ServerState = 'unknown' | 'known' | 'unconfirmed' | 'stopped';

/**
 * What the server watch learns:
 *
 * - `same`: a reservation or check reached the known server (or the first server, from `unknown`).
 * - `other`: a reservation or check sent in the current epoch reached another server, one hilo has not left (or
 *   one that may return, MariaDB): a failover. The epoch goes up by one.
 * - `late`: an answer from a server hilo left, or one sent before the last failover: its blocks are discarded, and
 *   nothing changes.
 * - `suspect`: hilo's own connection failed, or a check took longer than `serverCheckMs` (at most `timeoutMs / 4`).
 * - `cannot-tell`: a check answered without an identity, or refused in a way a retry will not cure: nothing will
 *   ever confirm the server, so parked keys go back, as with a source that has no check.
 * - `stop`: the generator closes.
 */
export type ServerEvent = 'same' | 'other' | 'late' | 'suspect' | 'cannot-tell' | 'stop';

/**
 * The watch's transitions: `SERVER_TRANSITIONS[state][event]` is the state after `event`. What reaches the
 * segments: into `unconfirmed` parks them, `unconfirmed` to `known` confirms them, `other` from `known` or
 * `unconfirmed` is a failover. `null`: the state never takes it (before a server is known nothing is late).
 */
export const SERVER_TRANSITIONS: {
  readonly [S in ServerState]: { readonly [E in ServerEvent]: ServerState | null };
} = {
  unknown: { same: 'known', other: null, late: null, suspect: 'unknown', 'cannot-tell': 'unknown', stop: 'stopped' },
  known: {
    same: 'known',
    other: 'known',
    late: 'known',
    suspect: 'unconfirmed',
    'cannot-tell': 'known',
    stop: 'stopped',
  },
  unconfirmed: {
    same: 'known',
    other: 'known',
    late: 'unconfirmed',
    suspect: 'unconfirmed',
    'cannot-tell': 'known',
    stop: 'stopped',
  },
  stopped: {
    same: 'stopped',
    other: null,
    late: 'stopped',
    suspect: 'stopped',
    'cannot-tell': 'stopped',
    stop: 'stopped',
  },
};

/**
 * The failover epoch: how many times the generator found itself on another server. It goes up by one at each
 * failover, and it is the one notion every part of the engine compares: work that read the database in one epoch
 * (a reservation, its store checks, a peer probe) is kept only if the epoch has not moved since; blocks from an
 * earlier epoch are discarded.
 */
export type Epoch = number;

/** The state after `event`; throws (a bug in the engine, never a user's error) where the table says `null`. */
export function nextSegmentState(state: SegmentState, event: SegmentEvent): SegmentState {
  const to = SEGMENT_TRANSITIONS[state][event];
  if (to === null) throw new Error(`hilo engine: a segment in state ${state} cannot take ${event}`);
  return to;
}

/** The watch's state after `event`; throws (a bug in the engine) where the table says `null`. */
export function nextServerState(state: ServerState, event: ServerEvent): ServerState {
  const to = SERVER_TRANSITIONS[state][event];
  if (to === null) throw new Error(`hilo engine: the server watch in state ${state} cannot take ${event}`);
  return to;
}
