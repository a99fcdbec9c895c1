import type { SegmentState } from './lifecycle.js';
import type { Block, ServerChange } from './types.js';

/** What the generator reports through `onEvent`. */
export type HiLoEvent =
  | {
      readonly type: 'reserved';
      readonly segment: string;
      readonly blocks: readonly Block[];
      readonly keys: number;
      readonly durationMs: number;
    }
  | {
      readonly type: 'retry';
      readonly segment: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: unknown;
    }
  | { readonly type: 'failed'; readonly segment: string; readonly error: unknown }
  | { readonly type: 'returned'; readonly segment: string; readonly keys: number }
  | {
      readonly type: 'lost';
      readonly segment: string;
      readonly keys: number;
      readonly reason: LostReason;
    }
  | { readonly type: 'resized'; readonly segment: string; readonly from: number; readonly to: number }
  /**
   * `onStoreBehind: 'lift'` found the hi store behind a stored key (`storedKey` in `table.column`) and moved it
   * above that key; the block it had handed out (`block`) was discarded.
   */
  | {
      readonly type: 'floor-lifted';
      readonly segment: string;
      readonly table: string;
      readonly column: string;
      readonly storedKey: bigint;
      readonly block: Block;
    }
  /**
   * hilo's own connection to the database failed (a reservation or a server check): the keys in memory are not
   * handed out until a server answers (`server-confirmed` when it is the one they were reserved on, `failover`
   * otherwise). `server` is the identity of the server they were reserved on.
   */
  | { readonly type: 'server-unconfirmed'; readonly server: string; readonly error: unknown }
  /** The server the keys in memory were reserved on answered again: they are handed out again. */
  | { readonly type: 'server-confirmed'; readonly server: string }
  /**
   * hilo found itself on another server than the one its blocks were reserved on (`from` → `to`): `change` says
   * what happened where the database can tell (`restart`: the same server started again; `promotion`: a promoted
   * standby or a point-in-time restore; `other-server` otherwise). Every block in memory was discarded either way
   * (`keysLost`, also reported as `lost` with reason `restart` after a restart, `failover` otherwise), and every
   * later key is above every key reserved before.
   */
  | {
      readonly type: 'failover';
      readonly from: string;
      readonly to: string;
      readonly keysLost: number;
      readonly change: ServerChange;
    }
  /** A reserved block passed 90 % of the segment's `maxKey` (once per segment and generator). */
  | {
      readonly type: 'headroom';
      readonly segment: string;
      readonly highestKey: bigint;
      readonly maxKey: bigint;
      readonly used: number;
    };

/**
 * Why keys were lost (never handed out): unused at `close`, granted to an attempt already abandoned
 * (`late-reservation`), past `maxKey` or Number.MAX_SAFE_INTEGER (`overflow`), in a store found behind its stored
 * keys, or in hand when a tenant's table found since holds one of them (`store-behind`), refused because a peer
 * reads the shared store with other settings (`mismatch`), or reserved on a server hilo no longer talks to
 * (`failover`), or reserved before the server restarted (`restart`); or handed out and then given up by the caller,
 * such as a graph load that rolled back (`discarded`).
 */
export type LostReason =
  'late-reservation' | 'close' | 'overflow' | 'store-behind' | 'mismatch' | 'failover' | 'restart' | 'discarded';

/** Counters and gauges of one segment, from `generator.stats()`. */
export interface SegmentStats {
  /**
   * Where the segment is in its life: `unverified` (no block kept on the server hilo is on yet), `serving` (its keys
   * in memory are handed out), `parked` (the server is unconfirmed: they wait), `refused` (a peer reads the shared
   * store differently: for good) or `closed`. See {@link SegmentState}.
   */
  readonly state: SegmentState;
  /** Keys handed out. */
  readonly keysIssued: number;
  /** Keys in memory, ready to hand out without a round trip. */
  readonly keysAvailable: number;
  /** Keys received from the database. */
  readonly keysReserved: number;
  /** Keys given back to the database at close. */
  readonly keysReturned: number;
  /** Keys that will never be used: unused at close, or granted after a timeout (gaps, never duplicates). */
  readonly keysLost: number;
  /** Successful reservations (round trips that produced blocks). */
  readonly reservations: number;
  /** Blocks received (a sequence may give several per reservation). */
  readonly blocksReserved: number;
  /** Reservation attempts that failed. */
  readonly failedAttempts: number;
  /** Size the next reservation will ask for. */
  readonly blockSize: number;
  /** Fraction of the segment's `maxKey` reached by the highest key reserved so far (0 before the first block). */
  readonly keyspaceUsed: number;
  /** Duration of the last successful reservation, in ms. */
  readonly lastReservationMs: number;
  /** Mean duration of successful reservations, in ms. */
  readonly meanReservationMs: number;
  /** Longest successful reservation, in ms. */
  readonly maxReservationMs: number;
}
