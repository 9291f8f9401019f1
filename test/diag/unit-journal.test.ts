import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUnitJournal } from '../../src/diag/index.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The unit's journal in the support bundle (docs/operations.md, "Logs"), read through a
 * fake journalctl on PATH: a shell script that records its arguments and prints what a
 * real one prints with -o json.
 */
let tmp: { dir: string; cleanup: () => void };

/** A test card number that passes the Luhn check, and a token-shaped secret. */
const PAN = '4111111111111111';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXJtaW5hbCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

function fakeJournalctl(name: string, script: string): NodeJS.ProcessEnv {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const file = join(dir, 'journalctl');
  writeFileSync(file, `#!/bin/sh\necho "$@" > "${dir}/args"\n${script}\n`);
  chmodSync(file, 0o755);
  return { PATH: `${dir}:/usr/bin:/bin` };
}

beforeAll(() => {
  tmp = tempDir('terminal-agent-journal-');
});
afterAll(() => tmp?.cleanup());

function jsonEntry(message: unknown, priority: string, micros: string): string {
  return JSON.stringify({
    __CURSOR: 's=abc',
    __REALTIME_TIMESTAMP: micros,
    _BOOT_ID: 'b00t',
    _MACHINE_ID: 'm4ch1ne',
    PRIORITY: priority,
    _PID: '4242',
    SYSLOG_IDENTIFIER: 'terminal-agent',
    MESSAGE: message,
  });
}

describe('the unit journal in the bundle', () => {
  it('runs journalctl for the unit, bounded, and keeps time, priority, pid and the scrubbed message', async () => {
    const lines = [
      jsonEntry(
        JSON.stringify({ level: 30, time: 1764130000000, msg: 'sale approved', accessToken: JWT, note: `card ${PAN}` }),
        '6',
        '1764130000000000',
      ),
      jsonEntry([...Buffer.from(`plain text Bearer ${JWT}`)], '3', '1764130001000000'),
    ];
    const env = fakeJournalctl('entries', `cat <<'EOF'\n${lines.join('\n')}\nEOF`);
    const j = await readUnitJournal({ env });
    expect(readFileSync(join(tmp.dir, 'entries', 'args'), 'utf8').trim()).toBe(
      '-u terminal-agent --since -1h -o json --no-pager -n 2000',
    );
    expect(j.available).toBe(true);
    expect(j.note).toBeNull();
    expect(j.entries).toHaveLength(2);
    expect(j.entries[0]).toMatchObject({
      time: '2025-11-26T04:06:40.000Z',
      priority: 6,
      pid: 4242,
      identifier: 'terminal-agent',
    });
    const first = JSON.parse(j.entries[0]?.message ?? '') as Record<string, unknown>;
    expect(first).toMatchObject({ level: 30, time: 1764130000000, msg: 'sale approved', accessToken: '[redacted]' });
    expect(j.entries[1]?.priority).toBe(3);
    expect(j.entries[1]?.message).toMatch(/^plain text Bearer \[redacted/);
    const text = JSON.stringify(j);
    expect(text).not.toContain(JWT);
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('m4ch1ne');
    expect(text).not.toContain('s=abc');
  });

  it('keeps only the last entries asked for and says it was truncated', async () => {
    const lines = Array.from({ length: 3 }, (_, i) => jsonEntry(`line ${i}`, '6', `176413000${i}000000`));
    const env = fakeJournalctl('bounded', `cat <<'EOF'\n${lines.join('\n')}\nEOF`);
    const j = await readUnitJournal({ env, lines: 3 });
    expect(readFileSync(join(tmp.dir, 'bounded', 'args'), 'utf8').trim()).toContain('-n 3');
    expect(j.truncated).toBe(true);
  });

  it('says so when the unit has no journal, when journalctl fails, and when there is no journalctl', async () => {
    const none = await readUnitJournal({ env: fakeJournalctl('none', 'exit 0') });
    expect(none).toMatchObject({
      available: true,
      entries: [],
      note: expect.stringMatching(/the unit terminal-agent has no journal entries since -1h/),
    });

    const hint = await readUnitJournal({
      env: fakeJournalctl(
        'hint',
        'echo "Hint: You are currently not seeing messages from other users and the system." >&2',
      ),
    });
    expect(hint.note).toMatch(/no journal entries since -1h \(journalctl: Hint: You are currently not seeing messages/);

    const failed = await readUnitJournal({
      env: fakeJournalctl('failed', 'echo "Failed to open journal: token=abcdef123" >&2; exit 1'),
    });
    expect(failed).toMatchObject({ available: false, entries: [] });
    expect(failed.note).toMatch(/^journalctl exited with 1: Failed to open journal: token=\[redacted\]$/);

    const empty = join(tmp.dir, 'empty-path');
    mkdirSync(empty);
    const missing = await readUnitJournal({ env: { PATH: empty } });
    expect(missing).toMatchObject({
      available: false,
      entries: [],
      note: expect.stringMatching(/^journalctl not found/),
    });
  });
});
