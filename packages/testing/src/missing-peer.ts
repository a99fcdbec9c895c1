import { isCI } from './environment.ts';

/** A peer a block of tests needs (a database, a cluster, a JVM) that this machine cannot give it. */
export interface MissingPeer<T> {
  /** What the block needs, for the failing test under CI=true: `needs <needs>`. */
  readonly needs: string;
  /** Which tests are skipped, for the one-line hint: `hilo tests: skipping <skipping>: <problem>`. */
  readonly skipping: string;
  /** Why the peer cannot be used here, and how to get it. */
  readonly problem: string;
  /** What the body of a skipped block gets: it declares its tests, none of which runs. */
  readonly placeholder: T;
}

/** The Jest functions and settings {@link describeMissingPeer} uses; a test of it passes its own. */
export interface PeerGateRuntime {
  readonly ci: boolean;
  readonly describe: (title: string, fn: () => void) => void;
  readonly skip: (title: string, fn: () => void) => void;
  readonly it: (title: string, fn: () => void) => void;
  /** Writes the hint (stderr). */
  readonly hint: (line: string) => void;
}

const jestRuntime = (): PeerGateRuntime => ({
  ci: isCI,
  describe: (title, fn) => describe(title, fn),
  // Skip reason: the peer is not on this machine (the hint written before says why and how to get it). Only
  // outside CI: under CI=true describeMissingPeer turns the same problem into a failing test instead.
  skip: (title, fn) => describe.skip(title, fn),
  it: (title, fn) => it(title, fn),
  hint: (line) => process.stderr.write(line),
});

/** The hints written so far (one per kind of test and process, not one per file's block). */
const hinted = new Set<string>();

/**
 * A block of tests whose peer is missing, handled the one way the whole suite does: with `CI=true` it is one
 * failing test, `needs <peer>`, whose error names the problem (a peer that cannot be started fails the run);
 * elsewhere the block is skipped, with a one-line hint on stderr, once per kind of test. Every `describe<Peer>`
 * harness calls this when its peer is missing, and describes the block itself otherwise.
 */
export function describeMissingPeer<T>(
  peer: MissingPeer<T>,
  title: string,
  body: (handle: T) => void,
  runtime: PeerGateRuntime = jestRuntime(),
): void {
  if (runtime.ci) {
    runtime.describe(title, () => {
      runtime.it(`needs ${peer.needs}`, () => {
        throw new Error(`${peer.problem} (CI=true: a peer that cannot be reached or started fails the run)`);
      });
    });
    return;
  }
  if (!hinted.has(peer.skipping)) {
    hinted.add(peer.skipping);
    runtime.hint(`hilo tests: skipping ${peer.skipping}: ${peer.problem}\n`);
  }
  runtime.skip(title, () => body(peer.placeholder));
}
