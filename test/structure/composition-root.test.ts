import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { constructionsOutsideRoot } from './composition-root.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function tree(files: Record<string, string>): string {
  const { dir: root, cleanup } = tempDir('composition-root-');
  cleanups.push(cleanup);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the composition root', () => {
  it('is the only place under src/ that builds the API servers and their parts', () => {
    const found = constructionsOutsideRoot('src');
    expect(found, found.join('\n')).toEqual([]);
  });

  it('reports a part built outside src/agent.ts and src/agent/, and none inside them', () => {
    const root = tree({
      'agent.ts': 'const r = new Router();\nconst l = createLanApi({});\n',
      'agent/local-api.ts': 'const h = new ui.SseHub({});\n',
      'ui/local/local-api.ts': 'const s = new SessionStore({}, clock);\nconst m = createAgentMetrics({});\n',
      'ui/lan/lan-api.ts': 'function f() {\n  return new Router();\n}\n',
      'ui/local/other.ts': 'const x = new RouterLike();\nconst y = createLanApiFor();\n',
    });
    expect(constructionsOutsideRoot(root)).toEqual([
      expect.stringMatching(/^ui\/lan\/lan-api\.ts:2 calls new Router: /),
      expect.stringMatching(/^ui\/local\/local-api\.ts:1 calls new SessionStore: /),
      expect.stringMatching(/^ui\/local\/local-api\.ts:2 calls createAgentMetrics\(\): /),
    ]);
  });
});
