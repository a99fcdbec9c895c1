// `COPY … FROM STDIN` over node-postgres without another dependency: `client.query()` takes any object with a
// `submit(connection)` method (pg's documented Submittable), and hands it the protocol messages of its statement.

/** The part of pg's `Connection` a COPY uses: the copy messages and the socket (for backpressure). */
export interface PgCopyConnectionLike {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  readonly stream: {
    readonly writableNeedDrain?: boolean;
    once(event: 'drain' | 'close', listener: () => void): unknown;
    removeListener(event: 'drain' | 'close', listener: () => void): unknown;
  };
}

/** pg's Submittable: what `client.query()` runs by calling `submit` with its connection. */
export interface PgSubmittableLike {
  submit(connection: PgCopyConnectionLike): void;
}

/** One `COPY … FROM STDIN` in flight on a pg client. */
export class CopyIn {
  private connection: PgCopyConnectionLike | undefined;
  private failure: unknown;
  private settled = false;
  private resolveReady!: () => void;
  private rejectReady!: (error: unknown) => void;
  private resolveDone!: () => void;
  private rejectDone!: (error: unknown) => void;
  /** Rows the server reported copied (`COPY n`). */
  rows = 0;
  /** Settles when the server is ready for data (or refused the statement). */
  readonly ready = new Promise<void>((resolve, reject) => {
    this.resolveReady = resolve;
    this.rejectReady = reject;
  });
  /** Settles when the statement ended: fulfilled when every row was taken, rejected with the server's error. */
  readonly done = new Promise<void>((resolve, reject) => {
    this.resolveDone = resolve;
    this.rejectDone = reject;
  });

  constructor(readonly text: string) {
    // whoever awaits them sees the error; a COPY abandoned after a failure must not be an unhandled rejection
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  /** Whether the server already refused: what is sent afterwards is dropped, so stop encoding. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  // ---- pg's Submittable ----

  submit(connection: PgCopyConnectionLike): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: PgCopyConnectionLike): void {
    this.connection = connection;
    this.resolveReady();
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)/.exec(message.text ?? '');
    if (match !== null) this.rows = Number(match[1]);
  }

  handleReadyForQuery(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.failure === undefined) {
      this.resolveReady();
      this.resolveDone();
    }
  }

  handleError(error: unknown): void {
    this.failure ??= error;
    this.settled = true;
    this.rejectReady(error);
    this.rejectDone(error);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}

  // ---- the writer's side ----

  /** Sends one chunk; resolves once the socket can take more (its 'drain'), or at once when it can. */
  async send(chunk: Buffer): Promise<void> {
    const connection = this.connection;
    if (connection === undefined || this.failed) return;
    connection.sendCopyFromChunk(chunk);
    if (connection.stream.writableNeedDrain !== true) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        connection.stream.removeListener('drain', done);
        connection.stream.removeListener('close', done);
        resolve();
      };
      connection.stream.once('drain', done);
      connection.stream.once('close', done);
      // a server error ends the wait too: nothing more will be read
      this.done.then(done, done);
    });
  }

  /** Ends the data; `done` then settles with the server's verdict. */
  end(): void {
    if (!this.failed) this.connection?.endCopyFrom();
  }

  /** Aborts the COPY with `message` (the server answers with an error, which `done` carries). */
  abort(message: string): void {
    if (!this.failed && !this.settled) this.connection?.sendCopyFail(message);
  }
}
