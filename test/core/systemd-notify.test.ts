import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifySystemdReady } from '../../src/core/index.js';
import { testLogger } from '../helpers/log-sink.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Readiness to systemd through a fake systemd-notify on PATH that records its arguments and NOTIFY_SOCKET. */
let tmp: { dir: string; cleanup: () => void };
let bin: string;

beforeAll(() => {
  tmp = tempDir('terminal-agent-notify-');
  bin = join(tmp.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'systemd-notify'), `#!/bin/sh\nprintf '%s\\n' "$NOTIFY_SOCKET" "$@" > "${tmp.dir}/called"\n`);
  chmodSync(join(bin, 'systemd-notify'), 0o755);
});
afterAll(() => tmp?.cleanup());

describe('readiness to systemd', () => {
  it('runs systemd-notify --ready with a status when NOTIFY_SOCKET is set', async () => {
    const { log } = testLogger();
    const ok = await notifySystemdReady(log, {
      env: { PATH: bin, NOTIFY_SOCKET: '/run/systemd/notify' },
      status: 'serving http://127.0.0.1:8080',
    });
    expect(ok).toBe(true);
    expect(readFileSync(join(tmp.dir, 'called'), 'utf8').split('\n').slice(0, 3)).toEqual([
      '/run/systemd/notify',
      '--ready',
      '--status=serving http://127.0.0.1:8080',
    ]);
  });

  it('runs nothing outside systemd, and logs a warning when systemd-notify is missing', async () => {
    const { log, sink } = testLogger();
    const called = join(tmp.dir, 'called');
    writeFileSync(called, '');
    expect(await notifySystemdReady(log, { env: { PATH: bin } })).toBe(false);
    expect(readFileSync(called, 'utf8')).toBe('');
    expect(
      await notifySystemdReady(log, { env: { PATH: join(tmp.dir, 'nowhere'), NOTIFY_SOCKET: '/run/systemd/notify' } }),
    ).toBe(false);
    expect(sink.text()).toMatch(/systemd-notify --ready failed \(systemd-notify not found\)/);
    expect(existsSync(called)).toBe(true);
  });
});
