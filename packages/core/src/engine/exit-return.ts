/**
 * Generators whose unused keys go back to their source when the process runs out of work (DESIGN rule 12): a
 * serverless function, a cron job or a script that never calls `close()` still returns the tail of its block,
 * wherever the source can prove it safe (`HiSource.release`, compare-and-set on the stored maximum). Node emits
 * `beforeExit` once the event loop is empty, never on `process.exit()`, a signal or a frozen runtime: there the
 * tail stays a gap, as it always may. One listener serves every generator, and it is removed when none is left.
 */
const closers = new Set<() => Promise<void>>();
let listening = false;

function onBeforeExit(): void {
  const closing = [...closers];
  closers.clear();
  stopListening();
  // closing runs statements, which keep the loop alive until they end; `beforeExit` then comes again, unheard
  for (const close of closing) void close().catch(() => undefined);
}

function stopListening(): void {
  if (!listening) return;
  process.off('beforeExit', onBeforeExit);
  listening = false;
}

/**
 * Calls `close` when the process is about to exit because nothing is left to do; the returned function cancels
 * that (the generator closed on its own). Nothing happens where there is no Node-style `process` (a browser).
 */
export function closeAtExit(close: () => Promise<void>): () => void {
  const proc = (globalThis as { process?: { on?: unknown } }).process;
  if (typeof proc?.on !== 'function') return () => undefined;
  closers.add(close);
  if (!listening) {
    process.on('beforeExit', onBeforeExit);
    listening = true;
  }
  return () => {
    closers.delete(close);
    if (closers.size === 0) stopListening();
  };
}
