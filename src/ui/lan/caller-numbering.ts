import type { EventNumbering } from '../local/index.js';

/** Numbers given by one caller's streams, the last `capacity` of them remembered. */
export class CallerNumbering implements EventNumbering {
  /** seqs[i] is the bus sequence of number first + i. */
  private readonly seqs: number[] = [];
  private first = 1;

  constructor(private readonly capacity = 1_000) {}

  numberOf(seq: number): number {
    const lastSeq = this.seqs.at(-1);
    if (lastSeq !== undefined && seq <= lastSeq) {
      const i = this.seqs.indexOf(seq);
      if (i >= 0) return this.first + i;
    }
    this.seqs.push(seq);
    if (this.seqs.length > this.capacity) {
      this.seqs.shift();
      this.first += 1;
    }
    return this.first + this.seqs.length - 1;
  }

  seqOf(n: number): number | undefined {
    return n >= this.first ? this.seqs[n - this.first] : undefined;
  }

  last(): number {
    return this.first + this.seqs.length - 1;
  }
}
