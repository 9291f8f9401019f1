import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The package's maintainer scripts (scripts/package/debian/; docs/operations.md,
 * "Installing") run by /bin/sh with a PATH holding only stubs that record their arguments:
 * every command they start is a stub, so nothing on this machine is changed (a command
 * without a stub is "not found" and fails the script).
 */
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SCRIPTS = join(REPO, 'scripts/package/debian');
const STUBS = ['adduser', 'getent', 'install', 'chown', 'chmod', 'rm', 'systemctl'];

const tmp = tempDir('terminal-agent-maint-');
afterAll(() => tmp.cleanup());

function runScript(
  name: string,
  args: string[],
  opts: { userExists?: boolean } = {},
): { code: number | null; calls: string[] } {
  const bin = join(tmp.dir, `bin-${name}-${args.join('-') || 'none'}`);
  const log = join(bin, 'calls.log');
  spawnSync('/bin/mkdir', ['-p', bin]);
  writeFileSync(log, '');
  for (const cmd of STUBS) {
    // getent answers "no such user" unless the test says the user exists.
    const status = cmd === 'getent' && !opts.userExists ? 2 : 0;
    writeFileSync(join(bin, cmd), `#!/bin/sh\necho "${cmd} $*" >>'${log}'\nexit ${status}\n`);
    chmodSync(join(bin, cmd), 0o755);
  }
  const r = spawnSync('/bin/sh', [join(SCRIPTS, name), ...args], { env: { PATH: bin }, encoding: 'utf8' });
  return { code: r.status, calls: readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
}

describe('maintainer scripts', () => {
  it('postinst on a first install creates the user in dialout, its 0700 state directory, and gives it the configuration', () => {
    const { code, calls } = runScript('postinst', ['configure', '']);
    expect(code).toBe(0);
    expect(calls).toContain('adduser --system --group --home /var/lib/terminal-agent --no-create-home terminal-agent');
    expect(calls).toContain('adduser terminal-agent dialout');
    expect(calls).toContain('install -d -m 0700 -o terminal-agent -g terminal-agent /var/lib/terminal-agent');
    expect(calls).toContain('chmod 0700 /var/lib/terminal-agent');
    expect(calls).toContain('chown terminal-agent:terminal-agent /etc/terminal-agent/config.json');
    expect(calls).toContain('chmod 0600 /etc/terminal-agent/config.json');
    expect(calls.some((c) => c.startsWith('rm'))).toBe(false);
    // Never enabled or started by the package: configuration and certificates come first.
    expect(calls.filter((c) => /systemctl .*(enable|start)/.test(c) && !c.includes('try-restart'))).toEqual([]);
  });

  it('postinst on an upgrade keeps the existing user and leaves the configuration as the administrator set it', () => {
    const { code, calls } = runScript('postinst', ['configure', '0.0.9'], { userExists: true });
    expect(code).toBe(0);
    expect(calls.some((c) => c.startsWith('adduser --system'))).toBe(false);
    expect(calls.some((c) => c.includes('/etc/terminal-agent/config.json'))).toBe(false);
    expect(calls).toContain('chmod 0700 /var/lib/terminal-agent');
  });

  it('prerm stops and disables on remove, leaves a running agent alone on upgrade', () => {
    const remove = runScript('prerm', ['remove']);
    expect(remove.code).toBe(0);
    expect(remove.calls).toContain('systemctl disable terminal-agent.service');
    const upgrade = runScript('prerm', ['upgrade', '0.2.0']);
    expect(upgrade.code).toBe(0);
    expect(upgrade.calls).toEqual([]);
  });

  it('postrm deletes the state directory on purge only', () => {
    for (const action of ['remove', 'upgrade', 'disappear', 'abort-install']) {
      const r = runScript('postrm', [action]);
      expect(r.code).toBe(0);
      expect(
        r.calls.filter((c) => c.startsWith('rm')),
        action,
      ).toEqual([]);
    }
    const purge = runScript('postrm', ['purge']);
    expect(purge.code).toBe(0);
    expect(purge.calls).toEqual(['rm -rf /var/lib/terminal-agent']);
  });
});
