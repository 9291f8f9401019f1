/**
 * Where the API servers' parts are built (docs/architecture.md, "Composition root"): the
 * composition root (src/agent.ts and its builders under src/agent/) constructs the router,
 * the session and register stores, idempotency, the SSE hub, the metrics, the pairing desk,
 * the server certificate and the store-network listener; every other file is handed them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { readImportGraph } from './import-graph.js';

/** Classes only the composition root may construct with `new`. */
export const ROOT_CLASSES = [
  'SseHub',
  'RegisterStore',
  'SessionStore',
  'Idempotency',
  'MemoryIdempotencyStore',
  'PairingDesk',
  'Router',
] as const;

/** Factories only the composition root may call. */
export const ROOT_FACTORIES = ['createLanApi', 'createAgentMetrics', 'loadOrCreateServerCertificate'] as const;

/** True for the composition root's own files (src-relative paths). */
export function isCompositionRoot(path: string): boolean {
  return path === 'agent.ts' || path.startsWith('agent/');
}

function calleeName(node: ts.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  return undefined;
}

/** One line per construction of a root-built part outside the composition root, naming file, line and what. */
export function constructionsOutsideRoot(srcDir: string): string[] {
  const classes = new Set<string>(ROOT_CLASSES);
  const factories = new Set<string>(ROOT_FACTORIES);
  const out: string[] = [];
  for (const file of readImportGraph(srcDir).files) {
    if (isCompositionRoot(file)) continue;
    const text = readFileSync(join(srcDir, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      let what: string | undefined;
      if (ts.isNewExpression(node)) {
        const name = calleeName(node.expression);
        if (name !== undefined && classes.has(name)) what = `new ${name}`;
      } else if (ts.isCallExpression(node)) {
        const name = calleeName(node.expression);
        if (name !== undefined && factories.has(name)) what = `${name}()`;
      }
      if (what !== undefined) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        out.push(
          `${file}:${line} calls ${what}: only the composition root builds it (docs/architecture.md, "Composition root")`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}
