import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRODUCTION_NODE_ENV, PRODUCTION_NODE_FLAGS } from '../../scripts/lib/production-profile.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Production runs node with the memory settings (docs/operations.md, "Memory settings"):
 * the package's launcher (which the systemd unit starts) and `npm start` pass the flags and
 * environment the benches measure (scripts/lib/production-profile.ts).
 */
const tmp = tempDir('terminal-agent-memory-settings-');
afterAll(() => tmp.cleanup());

/**
 * Runs the launcher from a root of its own whose bundled "node" is a script printing its
 * arguments and MALLOC_ARENA_MAX, one a line.
 */
function launch(env: NodeJS.ProcessEnv): string[] {
  const root = join(tmp.dir, 'root');
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  mkdirSync(join(root, 'opt/terminal-agent/node/bin'), { recursive: true });
  copyFileSync('scripts/package/terminal-agent.sh', join(root, 'usr/bin/terminal-agent'));
  chmodSync(join(root, 'usr/bin/terminal-agent'), 0o755);
  writeFileSync(
    join(root, 'opt/terminal-agent/node/bin/node'),
    '#!/bin/sh\nfor a in "$@"; do echo "arg $a"; done\necho "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX"\n',
    { mode: 0o755 },
  );
  const r = spawnSync(join(root, 'usr/bin/terminal-agent'), ['start', '--config', '/etc/terminal-agent/config.json'], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', ...env },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

describe('the memory settings production runs node with', () => {
  it("the package's launcher passes the flags before the CLI and sets the environment", () => {
    const out = launch({});
    const args = out.filter((l) => l.startsWith('arg ')).map((l) => l.slice(4));
    const cli = args.findIndex((a) => a.endsWith('/opt/terminal-agent/dist/src/cli/bin.js'));
    expect(cli).toBeGreaterThanOrEqual(0);
    expect(args.slice(0, cli)).toEqual([...PRODUCTION_NODE_FLAGS]);
    expect(args.slice(cli + 1)).toEqual(['start', '--config', '/etc/terminal-agent/config.json']);
    for (const [key, value] of Object.entries(PRODUCTION_NODE_ENV)) expect(out).toContain(`${key}=${value}`);
  });

  it('an operator may set MALLOC_ARENA_MAX for the launcher', () => {
    expect(launch({ MALLOC_ARENA_MAX: '4' })).toContain('MALLOC_ARENA_MAX=4');
  });

  it('`npm start` runs node with the same flags and environment', () => {
    const start =
      (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
    const env = Object.entries(PRODUCTION_NODE_ENV).map(([k, v]) => `${k}=${v}`);
    expect(start).toBe([...env, 'node', ...PRODUCTION_NODE_FLAGS, 'dist/src/cli/bin.js', 'start'].join(' '));
  });

  it("`npm run bench` runs node as production does, so the figures are production's", () => {
    const bench =
      (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.bench ?? '';
    const env = Object.entries(PRODUCTION_NODE_ENV).map(([k, v]) => `${k}=${v}`);
    expect(bench).toBe([...env, 'node', ...PRODUCTION_NODE_FLAGS, 'dist/scripts/bench/run.js'].join(' '));
  });

  it('the systemd unit starts the agent through the launcher', () => {
    expect(readFileSync('deploy/terminal-agent.service', 'utf8')).toMatch(
      /^ExecStart=\/usr\/bin\/terminal-agent start /m,
    );
  });
});
