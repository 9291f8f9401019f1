/** One request at a time per device (docs/serial-protocol.md, "Messages"): callers queue in order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private held = 0;

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => {
      release = r;
    });
    this.held++;
    try {
      await previous;
      return await fn();
    } finally {
      this.held--;
      release();
    }
  }

  get locked(): boolean {
    return this.held > 0;
  }
}
