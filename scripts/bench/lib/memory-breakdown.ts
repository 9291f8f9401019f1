import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a process's resident memory is, from /proc (Linux), bytes. */
export interface ProcessMemory {
  /** VmRSS: every resident page, shared or not (what the targets are about). */
  rss: number;
  /** Pss (smaps_rollup): pages shared with other processes counted by their share; a terminal runs one node, so there it is close to RSS. */
  pss: number;
  /** RssAnon: heap, malloc, stacks (the process's own). */
  anon: number;
  /** RssFile: pages mapped from files (code and read-only data). */
  file: number;
  /** Of `file`: the node executable's pages (V8, OpenSSL, ICU data, node's own JavaScript, all built in). */
  nodeBinary: number;
  /** Of `file`: shared libraries (libc, libstdc++) and native addons (better-sqlite3, serialport). */
  otherFiles: number;
}

function kib(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

/** The resident memory of process `pid`, split by kind (docs/performance.md, "Quality targets"). */
export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const node = realpathSync(process.execPath);
  let nodeBinary = 0;
  let otherFiles = 0;
  let path = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (mapping !== null) {
      // Inode 0: anonymous, [heap], [stack] or anon_inode mappings.
      path = mapping[1] === '0' ? '' : (mapping[2] as string);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss === null || path === '') continue;
    if (path === node) nodeBinary += Number(rss[1]) * 1024;
    else otherFiles += Number(rss[1]) * 1024;
  }
  return {
    rss: kib(status, 'VmRSS'),
    pss: kib(rollup, 'Pss'),
    anon: kib(status, 'RssAnon'),
    file: kib(status, 'RssFile'),
    nodeBinary,
    otherFiles,
  };
}

/** V8's heap as the process sees it, bytes: what of it is committed (resident) by space. */
export interface HeapFigures {
  /** Committed memory of every space (v8.getHeapStatistics total_physical_size). */
  committed: number;
  newSpace: number;
  oldSpace: number;
  /** Code, trusted and read-only spaces. */
  codeAndTrusted: number;
  largeObjects: number;
  used: number;
  /** Memory V8 is told of outside its heap (Buffers, native objects). */
  external: number;
}

/**
 * A probe for a child node process: `--import <script>` makes it write its V8 heap figures
 * as JSON to `out` on SIGUSR2 (the agent does not use it). It loads node:fs and node:v8
 * only, which node has loaded at start already. Written to `dir` as plain JavaScript.
 */
export function heapProbe(dir: string): { importArgs: string[]; out: string } {
  const out = join(dir, 'heap.json');
  const script = join(dir, 'heap-probe.mjs');
  writeFileSync(
    script,
    `import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
  const h = v8.getHeapStatistics();
  const sum = (names) => names.reduce((a, n) => a + (spaces[n] ?? 0), 0);
  writeFileSync(${JSON.stringify(out)}, JSON.stringify({
    committed: h.total_physical_size,
    newSpace: sum(['new_space']),
    oldSpace: sum(['old_space']),
    codeAndTrusted: sum(['code_space', 'trusted_space', 'read_only_space', 'shared_space']),
    largeObjects: sum(['large_object_space', 'new_large_object_space', 'code_large_object_space', 'trusted_large_object_space', 'shared_large_object_space']),
    used: h.used_heap_size,
    external: process.memoryUsage().external,
  }));
});
`,
  );
  return { importArgs: ['--import', script], out };
}

/** The probe's figures once it wrote them (polls up to `timeoutMs`). */
export async function readHeapProbe(out: string, timeoutMs = 5_000): Promise<HeapFigures> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return JSON.parse(readFileSync(out, 'utf8')) as HeapFigures;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the heap probe wrote nothing to ${out}: ${(err as Error).message}`, { cause: err });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
