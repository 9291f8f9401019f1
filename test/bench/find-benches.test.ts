import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findBenches } from '../../scripts/bench/lib/find-benches.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The runner (scripts/bench/run.ts) has no list of benches: it runs what this finds. */
const BENCH_DIR = join(import.meta.dirname, '../../scripts/bench');
const tmp = tempDir('find-benches-');
afterAll(() => tmp.cleanup());

describe('the bench runner finds the benches by file name', () => {
  it('finds every <name>.bench.ts with its definition, cheapest first', async () => {
    const found = await findBenches(BENCH_DIR);
    const files = readdirSync(BENCH_DIR)
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => f.slice(0, -'.bench.ts'.length));
    expect(found.map((b) => b.name).sort()).toEqual(files.sort());
    expect(found.map((b) => b.name)).toEqual([
      'durable-enqueue',
      'queue-drain',
      'online-sale',
      'relay',
      'scale',
      'cold-start',
      'rss-flat',
    ]);
    for (const b of found) expect(b.quickCount, b.name).toBeGreaterThan(0);
  });

  it('refuses a bench file that exports no definition instead of skipping it', async () => {
    writeFileSync(join(tmp.dir, 'broken.bench.ts'), 'export const nothing = 1;\n');
    await expect(findBenches(tmp.dir)).rejects.toThrow(/broken\.bench\.ts does not export a bench definition/);
  });
});
