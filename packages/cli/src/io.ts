/** The streams the command writes to; `process.stdout`/`process.stderr` in the `hilo` binary. */
export interface CliIo {
  /** Results: keys of `next`, the table of `status`, JSON. */
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Diagnostics, errors, and progress (progress only when this is a terminal). */
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Thrown by {@link LineWriter.write} once the reader went away (`hilo next … | head`). */
export class OutputClosedError extends Error {
  constructor() {
    super('stdout was closed by its reader');
    this.name = 'OutputClosedError';
  }
}

/** Streams that already ignore late errors, so repeated in-process runs add one listener, not one each. */
const quieted = new WeakSet<NodeJS.WritableStream>();

function isClosedPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/**
 * Writes text to a stream with backpressure: `write` resolves once the stream can take more, so memory
 * stays flat however many keys flow. A reader that closes early (EPIPE) turns into {@link OutputClosedError}
 * instead of a crash; other stream errors are rethrown.
 */
export class LineWriter {
  private failure: unknown;
  private readonly onError = (error: unknown) => {
    this.failure ??= isClosedPipe(error) ? new OutputClosedError() : error;
    this.wake?.();
  };
  private wake: (() => void) | undefined;

  constructor(private readonly stream: NodeJS.WritableStream) {
    stream.on('error', this.onError);
  }

  /** Writes `text`; waits for 'drain' when the stream's buffer is full. */
  async write(text: string): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the stream's own error, rethrown as it came
    if (this.failure !== undefined) throw this.failure;
    let ok: boolean;
    try {
      ok = this.stream.write(text);
    } catch (error) {
      this.onError(error);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- onError() has just set it (TypeScript keeps the narrowing)
      throw this.failure;
    }
    if (ok) return;
    await new Promise<void>((resolve) => {
      if (this.failure !== undefined) return resolve();
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.stream.on('drain', done);
      this.stream.on('close', done);
    });
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the stream's own error, rethrown as it came
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits until everything written so far was handed to the operating system, then stops listening. */
  async end(): Promise<void> {
    if (this.failure === undefined) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.stream.write('', () => resolve());
      });
      this.wake = undefined;
    }
    this.stream.off('error', this.onError);
    // a late EPIPE after we stop listening must not crash the process
    if (!quieted.has(this.stream)) {
      quieted.add(this.stream);
      this.stream.on('error', () => undefined);
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the stream's own error, rethrown as it came
    if (this.failure !== undefined) throw this.failure;
  }
}

/**
 * A one-line progress display on stderr, redrawn at most a few times per second, shown only when stderr
 * is a terminal so that logs and pipes never receive it.
 */
export class Progress {
  private last = 0;
  private shown = false;
  private readonly enabled: boolean;

  constructor(private readonly stderr: CliIo['stderr']) {
    this.enabled = stderr.isTTY === true;
  }

  /** Redraws the line when enough time has passed since the last redraw. */
  update(text: () => string): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 200) return;
    this.last = now;
    this.shown = true;
    this.stderr.write(`\r\u001b[2K${text()}`);
  }

  /** Erases the line. */
  clear(): void {
    if (this.shown) this.stderr.write('\r\u001b[2K');
    this.shown = false;
  }
}
