/**
 * The import graph of src/ and the rules of docs/architecture.md, "Layers": each folder
 * imports only folders below it, reaches another folder only through its index.ts, and
 * no file imports itself back through a chain of imports (type-only imports count: they
 * are how a layer leaks its shape upwards). Inside ui/ the same rules hold between its
 * parts (UI_PARTS).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Bottom to top: a folder may import the folders before it in this list. */
export const LAYERS = [
  'core',
  'config',
  'identity',
  'events',
  'platform',
  'auth',
  'devices',
  'payments',
  'offline',
  'ui',
  'diag',
  'agent',
  'cli',
] as const;

/** The demo platform and simulated devices stand beside the agent: built on its lowest folders, used only by the composition root and the CLI. */
export const SIDE_FOLDERS: Readonly<Record<string, { mayImport: readonly string[]; importedBy: readonly string[] }>> = {
  sim: { mayImport: ['core', 'config', 'identity', 'devices'], importedBy: ['agent', 'cli'] },
};

/**
 * The parts of ui/, each a folder with its own index.ts, and the parts each may import
 * (docs/architecture.md, "Layers"). The relation has no cycle, so neither can the parts.
 * `page` is the browser's program: it reads the shared wire types, type only.
 */
export const UI_PARTS: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  metrics: ['shared'],
  openapi: ['shared'],
  client: ['shared'],
  page: ['shared'],
  local: ['shared', 'metrics', 'openapi'],
  lan: ['shared', 'local'],
};

/**
 * Files at the top of ui/ besides its index.ts: the counter page's paths to the shared wire
 * types (its files import `../wire-types.js`), counted as the shared part's.
 */
export const UI_PAGE_PATHS: Readonly<Record<string, string>> = {
  'ui/wire-types.ts': 'shared',
  'ui/report-wire-types.ts': 'shared',
};

export interface ImportEdge {
  from: string;
  to: string;
  line: number;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listTs(full));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every relative import, export-from and dynamic import of every .ts file under `srcDir`, as paths relative to it. */
export function readImportGraph(srcDir: string): ImportGraph {
  const root = resolve(srcDir);
  const files = listTs(root).sort();
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), ref.fileName).replace(/\.js$/, '.ts');
      const line = text.slice(0, ref.pos).split('\n').length;
      edges.push({
        from: relative(root, file).split(sep).join('/'),
        to: relative(root, target).split(sep).join('/'),
        line,
      });
    }
  }
  return { files: files.map((f) => relative(root, f).split(sep).join('/')), edges };
}

/** The top folder a src-relative path belongs to; the composition root file is its own layer. */
export function folderOf(path: string): string {
  const first = path.split('/')[0] as string;
  return first === 'agent.ts' ? 'agent' : first;
}

function mayImport(from: string, to: string): boolean {
  const side = SIDE_FOLDERS[from];
  if (side !== undefined) return side.mayImport.includes(to);
  const target = SIDE_FOLDERS[to];
  if (target !== undefined) return target.importedBy.includes(from);
  const a = LAYERS.indexOf(from as (typeof LAYERS)[number]);
  const b = LAYERS.indexOf(to as (typeof LAYERS)[number]);
  return a >= 0 && b >= 0 && b < a;
}

function isFolderSurface(path: string): boolean {
  return path === 'agent.ts' || /^[^/]+\/index\.ts$/.test(path);
}

/** The strongly connected components with more than one file, or a file importing itself. */
export function importCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const f of graph.files) if (!index.has(f)) visit(f);
  return cycles;
}

/** The part of ui/ a path under ui/ belongs to; `ui` for ui/index.ts, undefined for any other file at its top. */
export function uiPartOf(path: string): string | undefined {
  if (path === 'ui/index.ts') return 'ui';
  const page = UI_PAGE_PATHS[path];
  if (page !== undefined) return page;
  const segments = path.split('/');
  return segments.length > 2 ? segments[1] : undefined;
}

/** The rules between the parts of ui/, for an import from one ui/ file to another. */
function uiPartViolation(e: ImportEdge): string | undefined {
  const from = uiPartOf(e.from);
  const to = uiPartOf(e.to);
  if (from === undefined || to === undefined || from === to) return undefined;
  if (to === 'ui') return `${e.from}:${e.line} imports ${e.to}: a part of ui/ never imports the layer's index`;
  if (from !== 'ui' && !(UI_PARTS[from] ?? []).includes(to))
    return `${e.from}:${e.line} imports ${e.to}: ui part ${from} may not depend on ui part ${to} (docs/architecture.md, "Layers")`;
  const surface = e.to === `ui/${to}/index.ts` || (from === 'page' && UI_PAGE_PATHS[e.to] === to);
  if (!surface) return `${e.from}:${e.line} imports ${e.to}: reach ui/${to}/ through ui/${to}/index.ts`;
  return undefined;
}

/** One line per broken rule, naming the file, the line and the rule; empty when the tree keeps them all. */
export function structureViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const file of graph.files) {
    if (folderOf(file) === 'ui' && uiPartOf(file) === undefined)
      out.push(`${file}: a file of ui/ belongs in one of its parts (${Object.keys(UI_PARTS).join(', ')})`);
  }
  for (const e of graph.edges) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === 'ui' && to === 'ui') {
      const broken = uiPartViolation(e);
      if (broken !== undefined) out.push(broken);
      continue;
    }
    if (from === to) continue;
    if (!mayImport(from, to))
      out.push(`${e.from}:${e.line} imports ${e.to}: ${from} may not depend on ${to} (docs/architecture.md, "Layers")`);
    else if (!isFolderSurface(e.to))
      out.push(`${e.from}:${e.line} imports ${e.to}: reach ${to}/ through ${to}/index.ts`);
  }
  for (const cycle of importCycles(graph)) out.push(`import cycle: ${cycle.join(' <-> ')}`);
  return out;
}
