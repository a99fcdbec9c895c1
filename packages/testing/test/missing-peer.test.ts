// The one way every describe<Peer> harness handles a peer this machine lacks: a failing test under CI=true, a
// skipped block with one hint per kind of test elsewhere. Run with recording stand-ins for Jest's functions, since
// a real failing test here would fail this run.
import { describeMissingPeer, type PeerGateRuntime } from '../src/missing-peer.ts';

function recording(ci: boolean) {
  const calls: string[] = [];
  const thrown: unknown[] = [];
  const runtime: PeerGateRuntime = {
    ci,
    describe: (title, fn) => {
      calls.push(`describe ${title}`);
      fn();
    },
    skip: (title, fn) => {
      calls.push(`skip ${title}`);
      fn();
    },
    it: (title, fn) => {
      calls.push(`it ${title}`);
      try {
        fn();
      } catch (error) {
        thrown.push(error);
      }
    },
    hint: (line) => calls.push(`hint ${line}`),
  };
  return { calls, thrown, runtime };
}

const peer = (skipping: string) => ({
  needs: 'PgBouncer',
  skipping,
  problem: 'no pgbouncer binary; install it with apt-get install -y pgbouncer',
  placeholder: { start: () => 'never' },
});

describe('describeMissingPeer', () => {
  it('under CI=true: one failing test that names the problem, and the body is never declared', () => {
    const { calls, thrown, runtime } = recording(true);
    const bodies: unknown[] = [];
    describeMissingPeer(peer('pooler tests (ci)'), 'pooler', (handle) => bodies.push(handle), runtime);
    expect(calls).toEqual(['describe pooler', 'it needs PgBouncer']);
    expect(bodies).toEqual([]);
    expect(thrown).toHaveLength(1);
    expect(String(thrown[0])).toContain('no pgbouncer binary; install it with apt-get install -y pgbouncer');
    expect(String(thrown[0])).toContain('CI=true');
  });

  it('elsewhere: the block is skipped with the placeholder, and the hint is written once per kind of test', () => {
    const { calls, runtime } = recording(false);
    const handles: unknown[] = [];
    const pooler = peer('pooler tests (local)');
    const other = peer('other tests (local)');
    describeMissingPeer(pooler, 'first', (handle) => handles.push(handle), runtime);
    describeMissingPeer(pooler, 'second', (handle) => handles.push(handle), runtime);
    describeMissingPeer(other, 'third', (handle) => handles.push(handle), runtime);
    const hint = (kind: string) => `hint hilo tests: skipping ${kind}: ${pooler.problem}\n`;
    expect(calls).toEqual([
      hint('pooler tests (local)'),
      'skip first',
      'skip second',
      hint('other tests (local)'),
      'skip third',
    ]);
    expect(handles).toEqual([pooler.placeholder, pooler.placeholder, other.placeholder]);
    expect(handles[0]).toBe(pooler.placeholder);
  });
});
