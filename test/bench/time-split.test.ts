import { describe, expect, it } from 'vitest';
import { TimeSplit } from '../../scripts/bench/lib/time-split.js';

/** A clock the calls below move: the split's figures are exact. */
let clock = 0;
function spin(ms: number): void {
  clock += ms;
}

class Worker {
  calls = 0;
  outer(): string {
    this.calls++;
    spin(4);
    this.inner();
    return 'done';
  }
  inner(): void {
    spin(6);
  }
}

describe('TimeSplit', () => {
  it('gives each wrapped method its own time, the outer one without the inner', () => {
    const split = new TimeSplit(() => clock);
    const w = new Worker();
    split.wrap(w, 'outer', 'outer');
    split.wrap(w, 'inner', 'inner');
    split.active = true;
    expect(w.outer()).toBe('done');
    expect(split.ms('inner')).toBe(6);
    // Exclusive: the outer part does not count the inner call's 6 ms again.
    expect(split.ms('outer')).toBe(4);
    w.outer();
    expect(split.ms('outer')).toBe(8);
  });

  it('counts nothing while inactive, names the part per call, and restores the methods', () => {
    const split = new TimeSplit(() => clock);
    const w = new Worker();
    const proto = Worker.prototype.inner;
    let phase = 'a';
    split.wrap(Worker.prototype, 'inner', () => phase);
    w.inner();
    expect(split.ms('a')).toBe(0);
    split.active = true;
    w.inner();
    phase = 'b';
    w.inner();
    expect(split.ms('a')).toBe(6);
    expect(split.ms('b')).toBe(6);
    split.restore();
    expect(Worker.prototype.inner).toBe(proto);
    expect(Object.prototype.hasOwnProperty.call(w, 'inner')).toBe(false);
  });

  it('replaces a value until restore, and removes one the object did not have', () => {
    const split = new TimeSplit(() => clock);
    const target: { f?: () => number } = {};
    split.replace(target, 'f', () => 1);
    expect(target.f?.()).toBe(1);
    split.restore();
    expect('f' in target).toBe(false);
  });
});
