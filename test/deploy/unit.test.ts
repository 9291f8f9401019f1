import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The shipped systemd unit (docs/operations.md, "systemd unit"), checked with
 * systemd's own tools, which work on a unit file without a running systemd:
 * `systemd-analyze verify` and `systemd-analyze security --offline=true`. .ci/run installs
 * them (package systemd); without them the checks are skipped and say why.
 */
const UNIT = 'deploy/terminal-agent.service';
const hasAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const tmp = tempDir('terminal-agent-unit-');
afterAll(() => tmp.cleanup());

/** The exposure systemd-analyze security prints on its last line, 0 (best) to 10. */
function exposure(file: string): { score: number; status: number | null; output: string } {
  const r = spawnSync('systemd-analyze', ['security', '--offline=true', '--threshold=25', '--no-pager', file], {
    encoding: 'utf8',
  });
  const m = /Overall exposure level for [^:]+: (\d+(?:\.\d+)?)/.exec(r.stdout);
  if (m === null) throw new Error(`no exposure level in systemd-analyze output:\n${r.stdout}\n${r.stderr}`);
  return { score: Number(m[1]), status: r.status, output: r.stdout };
}

/**
 * The unit with ExecStart's program (the package's /usr/bin/terminal-agent) replaced by an
 * executable of this test's, so verify finds one on any machine.
 */
function unitCopy(name: string, edit: (text: string) => string = (t) => t): string {
  const file = join(tmp.dir, name);
  mkdirSync(dirname(file), { recursive: true });
  const program = join(tmp.dir, 'terminal-agent');
  writeFileSync(program, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(file, edit(readFileSync(UNIT, 'utf8').replace('/usr/bin/terminal-agent ', `${program} `)));
  return file;
}

describe('the unit file (static)', () => {
  const text = readFileSync(UNIT, 'utf8');
  const settings = (key: string): string[] =>
    [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1] ?? '');

  it('logs to the journal with the priority prefix under its own identifier, reports readiness and limits restarts', () => {
    expect(settings('SyslogIdentifier')).toEqual(['terminal-agent']);
    expect(settings('SyslogLevelPrefix')).toEqual(['yes']);
    expect(settings('Type')).toEqual(['notify']);
    expect(settings('NotifyAccess')).toEqual(['all']);
    expect(settings('Restart')).toEqual(['on-failure']);
    expect(Number(settings('StartLimitBurst')[0])).toBeGreaterThan(0);
    expect(Number(settings('StartLimitIntervalSec')[0])).toBeGreaterThan(0);
  });

  it('reloads with SIGHUP (`systemctl reload`), which the agent takes as "read the configuration again", never as a stop', () => {
    expect(settings('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
  });

  it('is hardened: no privileges, read-only system but its state, serial devices only, the address families it uses', () => {
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['ProtectSystem', 'strict'],
      ['ReadWritePaths', '/var/lib/terminal-agent'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['DevicePolicy', 'closed'],
      ['RestrictAddressFamilies', 'AF_INET AF_INET6 AF_UNIX AF_NETLINK'],
      ['MemoryDenyWriteExecute', 'no'],
    ] as const) {
      expect(settings(key), key).toEqual([value]);
    }
    expect(settings('SystemCallFilter')).toContain('@system-service');
    expect(settings('DeviceAllow')).toEqual(
      expect.arrayContaining(['char-ttyUSB rw', 'char-ttyACM rw', '/dev/ttyS0 rw']),
    );
  });
});

describe.skipIf(!hasAnalyze)(
  'the unit file (systemd-analyze; skipped: systemd-analyze is not installed, .ci/run installs package systemd)',
  () => {
    it('passes systemd-analyze verify', () => {
      const file = unitCopy('terminal-agent.service');
      const r = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8' });
      expect(
        r.stderr
          .split('\n')
          .filter((l) => l.includes('terminal-agent.service'))
          .join('\n'),
      ).toBe('');
      expect(r.status, r.stderr).toBe(0);
    });

    it('has an exposure of at most 2.5 in systemd-analyze security, and the check fails a weakened unit', () => {
      const { score, status, output } = exposure(unitCopy('terminal-agent.service'));
      expect(score, output).toBeLessThanOrEqual(2.5);
      expect(status).toBe(0);
      // The same check on the unit as it was before hardening (only the basics) goes over the threshold.
      const weak = exposure(
        unitCopy('weak/terminal-agent.service', (t) =>
          t
            .split('\n')
            .filter(
              (l) =>
                !/^(Protect|Restrict|Private|Capability|SystemCall|Device|Lock|Remove|Keyring|NoNewPrivileges|AmbientCapabilities)/.test(
                  l,
                ),
            )
            .join('\n'),
        ),
      );
      expect(weak.score).toBeGreaterThan(2.5);
      expect(weak.status).not.toBe(0);
    });
  },
);
