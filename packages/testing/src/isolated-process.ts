// Starting a database server (or Patroni, or etcd) as an unprivileged user in PID and IPC namespaces of its own,
// so that one SIGKILL takes every process of it down at once, as a crashed host would, and nothing it forked
// outlives a test. Outside a namespace (not root, or a container that forbids unshare) it runs in a process group
// of its own, and the group is killed. Shared by the PostgreSQL primary/standby and the Patroni harnesses.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A user to run a server as (the server refuses to run as root). */
export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

let namespaces: boolean | undefined;

/** Whether `unshare --pid --ipc --fork` works here (root, and not forbidden by a container). */
export function canUseNamespaces(): boolean {
  if (namespaces === undefined) {
    try {
      execFileSync('unshare', ['--pid', '--ipc', '--fork', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
      namespaces = process.getuid?.() === 0;
    } catch {
      namespaces = false;
    }
  }
  return namespaces;
}

/** The PID of `parent`'s only child (unshare's forked child, which setpriv turned into the program). */
export function childOf(parent: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return undefined;
}

/**
 * Keeps the last 400 lines `stream` writes in `logLines` (a server's log, for the error when it does not start) and
 * hands each to `onLine` as it arrives (e.g. to wait for "ready for connections").
 */
export function collectLines(
  stream: NodeJS.ReadableStream | null,
  logLines: string[],
  onLine?: (line: string) => void,
): void {
  let pending = '';
  stream?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      logLines.push(line);
      if (logLines.length > 400) logLines.shift();
      onLine?.(line);
    }
  });
}

/** A program started by {@link spawnIsolated}. */
export interface IsolatedProcess {
  readonly child: ChildProcess;
  /** The PID to kill: the namespace's first process as this process sees it, or the child's own (then its group). */
  readonly pid: number;
  /** Whether it runs in a process group of its own (no namespace): kill the group. */
  readonly ownGroup: boolean;
  /** Its last 400 lines of output (stdout and stderr). */
  readonly logLines: string[];
  /** Resolves once it has exited and its output is closed. */
  readonly exited: Promise<void>;
}

/** How {@link spawnIsolated} runs a program. */
export interface IsolationOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** A /proc of its own in the namespace (Patroni looks its postmaster up there by PID). */
  readonly mountProc?: boolean;
  /** Called with each line of output as it arrives (e.g. to wait for "ready to accept connections"). */
  readonly onLine?: (line: string) => void;
}

/** Starts `argv` as `user`, in namespaces of its own when it can, collecting its output lines. */
export async function spawnIsolated(
  user: OsUser | undefined,
  argv: readonly string[],
  options: IsolationOptions,
): Promise<IsolatedProcess> {
  const { cwd, env } = options;
  const useNamespace = user !== undefined && canUseNamespaces();
  const child = useNamespace
    ? spawn(
        'unshare',
        [
          '--pid',
          '--ipc',
          '--fork',
          ...(options.mountProc === true ? ['--mount-proc'] : []),
          '--kill-child',
          '--',
          'setpriv',
          `--reuid=${user.uid}`,
          `--regid=${user.gid}`,
          '--init-groups',
          ...argv,
        ],
        { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
      )
    : spawn(argv[0]!, argv.slice(1), { ...(user ?? {}), cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const logLines: string[] = [];
  collectLines(child.stdout, logLines, options.onLine);
  collectLines(child.stderr, logLines, options.onLine);
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    // a program that cannot be started (not installed): said in the error below, never an unhandled 'error'
    child.once('error', (error) => {
      logLines.push(String(error));
      resolve();
    });
  });
  let pid = child.pid;
  if (useNamespace) {
    const deadline = performance.now() + 5000;
    pid = undefined;
    while (pid === undefined && performance.now() < deadline && child.exitCode === null) {
      pid = childOf(child.pid!);
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  if (pid === undefined) {
    throw new Error(`${argv[0]} started, but its PID is not under unshare: ${logLines.slice(-2).join(' | ')}`);
  }
  return { child, pid, ownGroup: !useNamespace, logLines, exited };
}

/** SIGKILL to `p` (its namespace, or its group) at once, for exit hooks; no error when it is gone. */
export function killNow(p: Pick<IsolatedProcess, 'pid' | 'ownGroup'>): void {
  try {
    process.kill(p.ownGroup ? -p.pid : p.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILL to `p` (its namespace, or its group); resolves when it is gone. */
export async function killIsolated(p: IsolatedProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  killNow(p);
  await p.exited;
}
