import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchDefinition } from './bench-definition.js';

/** A bench found on disk: its definition and the name its file gives it. */
export interface FoundBench extends BenchDefinition {
  name: string;
  file: string;
}

/** `.js` when running compiled (dist/scripts/bench), `.ts` when the sources are loaded (vitest). */
const EXT = extname(fileURLToPath(import.meta.url));
const SUFFIX = `.bench${EXT}`;

function isDefinition(value: unknown): value is BenchDefinition {
  const v = value as Partial<BenchDefinition> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.order === 'number' &&
    typeof v.quickCount === 'number' &&
    typeof v.run === 'function'
  );
}

/**
 * Every `<name>.bench.{js,ts}` in `dir` (the runner's own folder), in the order a full run
 * takes them. A file that does not export a `bench` definition is an error, not skipped: a
 * bench that silently stops running would look like a bench that passes.
 */
export async function findBenches(dir: string): Promise<FoundBench[]> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX))
    .sort();
  const found: FoundBench[] = [];
  for (const f of files) {
    const file = join(dir, f);
    const mod = (await import(pathToFileURL(file).href)) as { bench?: unknown };
    if (!isDefinition(mod.bench))
      throw new Error(`${file} does not export a bench definition ({ order, quickCount, run })`);
    found.push({ ...mod.bench, name: f.slice(0, -SUFFIX.length), file });
  }
  return found.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}
