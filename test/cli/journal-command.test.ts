import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payments/journal/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `terminal-agent journal check` (docs/operations.md, "CLI commands"): the field engineer's
 * read-only look at the journal, exit 0 when the agent would start on it, 2 when it is
 * damaged or was emptied; and `start` refusing a configuration file that holds a secret
 * open to others, in one line with the chmod.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function dataDirWithSales(n: number): { dir: string; file: string } {
  const t = tempDir('journal-cli-');
  cleanups.push(t.cleanup);
  const dir = join(t.dir, 'data');
  const journal = new Journal({ dataDir: dir });
  for (let i = 0; i < n; i++) {
    journal.insert({
      clientTransactionId: `c-${i}`,
      kind: 'sale',
      amount: 100 + i,
      currency: 'EUR',
      state: i % 2 === 0 ? 'approved' : 'declined',
      clientDateTime: '2026-01-01T10:00:00.000Z',
      method: 'card',
    });
  }
  const file = journal.file;
  journal.close();
  return { dir, file };
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('terminal-agent journal check', () => {
  it('a sound journal: exit 0, with what it found', async () => {
    const { dir, file } = dataDirWithSales(4);
    const r = await runCli(['--data-dir', dir, 'journal', 'check']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`journal ${file}: ok`);
    expect(r.stdout).toMatch(/transactions: (approved 2, declined 2|declined 2, approved 2)/);
    expect(r.stdout).toMatch(/checked: header, size and every page/);
    expect(r.stdout).toMatch(/rows holding card data: 0/);
    const json = await runCli(['--data-dir', dir, 'journal', 'check', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      state: 'ok',
      file,
      markerPresent: true,
      rows: { approved: 2, declined: 2 },
    });
  });

  it('shows the size on disk, the oldest row, the retention setting and when the next prune runs', async () => {
    const { dir, file } = dataDirWithSales(3);
    const reader = new Database(file, { readonly: true });
    const oldest = (reader.prepare('SELECT min(created_at) AS at FROM transactions').get() as { at: string }).at;
    reader.close();
    // No agent on this journal: the schedule in words.
    const idle = await runCli(['--data-dir', dir, 'journal', 'check'], {
      TERMINAL_AGENT_JOURNAL__RETENTION_DAYS: '500',
    });
    expect(idle.code).toBe(0);
    expect(idle.stdout).toMatch(
      /on disk: \d+ bytes \(file and write-ahead log\), \d+ free pages, auto_vacuum incremental/,
    );
    expect(idle.stdout).toContain(`oldest row: ${oldest}`);
    expect(idle.stdout).toContain(
      'retention: 500 days; no agent running on this journal: it prunes 10 min after the agent starts, then every 6 h',
    );
    // A running agent's schedule beside the journal (this process stands for it).
    const next = '2027-01-02T03:04:05.000Z';
    writeFileSync(
      `${file}.prune`,
      JSON.stringify({
        pid: process.pid,
        retentionDays: 400,
        nextPruneAt: next,
        lastPrune: {
          at: '2027-01-01T21:04:05.000Z',
          cutoff: '2025-11-27T21:04:05.000Z',
          rows: 12,
          sales: 10,
          partnerRows: 2,
          batches: 1,
          pagesFreed: 9,
        },
      }),
    );
    const json = await runCli(['--data-dir', dir, 'journal', 'check', '--json']);
    const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      state: 'ok',
      oldestRowAt: oldest,
      autoVacuum: 'incremental',
      retention: { retentionDays: 400, nextPruneAt: next, lastPrune: { rows: 12 } },
    });
    expect(typeof parsed.sizeBytes).toBe('number');
    const text = await runCli(['--data-dir', dir, 'journal', 'check']);
    expect(text.stdout).toContain(`retention: 400 days; next prune at ${next} (then every 6 h)`);
    expect(text.stdout).toContain('last prune: 2027-01-01T21:04:05.000Z, 12 rows removed');
  });

  it('journal compact switches an older journal to incremental vacuum, and refuses while an agent runs on it', async () => {
    const { dir, file } = dataDirWithSales(5);
    const raw = new Database(file);
    raw.pragma('auto_vacuum = NONE');
    raw.exec('VACUUM');
    raw.close();
    // pid 1 always lives: stands for an agent running on this journal.
    writeFileSync(`${file}.prune`, JSON.stringify({ pid: 1, retentionDays: 400, nextPruneAt: null, lastPrune: null }));
    const refused = await runCli(['--data-dir', dir, 'journal', 'compact']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the agent \(process 1\) runs on .*: stop it first/);
    writeFileSync(`${file}.prune`, '{}');
    const done = await runCli(['--data-dir', dir, 'journal', 'compact', '--json']);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ file, autoVacuum: { before: 'none', after: 'incremental' } });
    const after = new Database(file, { readonly: true });
    expect(after.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(after.prepare('SELECT COUNT(*) AS n FROM transactions').get()).toEqual({ n: 5 });
    after.close();
  });

  it('a garbage page: exit 2, DAMAGED with what SQLite found and what to do; the file unchanged', async () => {
    const { dir, file } = dataDirWithSales(200);
    const pageSize = readFileSync(file).readUInt16BE(16);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, pageSize);
    closeSync(fd);
    const before = digest(file);
    const r = await runCli(['--data-dir', dir, 'journal', 'check']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`journal ${file}: DAMAGED`);
    expect(r.stdout).toMatch(/found: SQLite's check found: /);
    expect(r.stdout).toMatch(/never delete them/);
    expect(digest(file)).toBe(before);
  });

  it('a zero-length journal where one was kept: exit 2, EMPTIED', async () => {
    const { dir, file } = dataDirWithSales(1);
    truncateSync(file, 0);
    const r = await runCli(['--data-dir', dir, 'journal', 'check']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`journal ${file}: EMPTIED`);
    expect(r.stdout).toMatch(/found: the journal file is empty \(0 bytes\)/);
  });

  it('no journal yet: exit 0, says so', async () => {
    const t = tempDir('journal-cli-');
    cleanups.push(t.cleanup);
    const r = await runCli(['--data-dir', t.dir, 'journal', 'check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no journal \(a new data directory\)/);
  });
});

describe('terminal-agent start with a secret in a file open to others', () => {
  it('refuses in one line naming the file and the chmod, before starting anything', async () => {
    const t = tempDir('journal-cli-config-');
    cleanups.push(t.cleanup);
    const file = join(t.dir, 'agent.json');
    writeFileSync(
      file,
      JSON.stringify({
        dataDir: join(t.dir, 'data'),
        auth: { mode: 'password', username: 'staff1', password: 'hunter2' },
      }),
      { mode: 0o644 },
    );
    const r = await runCli(['--config', file, 'start']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      `terminal-agent: config: ${file} holds auth.password and is open to group or others (mode 0644): run \`chmod 600 ${file}\` [CONFIG_PERMISSIONS]`,
    ]);
  });
});
