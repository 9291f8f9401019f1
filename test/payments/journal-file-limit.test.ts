import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { untilTrue } from '../helpers/wait.js';

/**
 * The journal on a disk that cannot take more bytes, made by the kernel: this process's
 * file-size limit (RLIMIT_FSIZE through prlimit(1), as the chaos run's disk-full moments do:
 * scripts/chaos/front-door/disk-full.ts). Writes past the limit fail with EFBIG, which SQLite
 * reports as SQLITE_IOERR_WRITE (docs/journal.md, "Journal", writes that fail).
 */
function limitFileSize(bytes: number | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${bytes}:unlimited`]);
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  limitFileSize('unlimited');
  for (const c of cleanups.splice(0)) c();
});

function openJournal(): Journal {
  const tmp = tempDir('journal-limit-');
  const journal = new Journal({ dataDir: join(tmp.dir, 'data'), writeRetry: { baseMs: 20, capMs: 50, attempts: 3 } });
  cleanups.push(() => {
    journal.close();
    tmp.cleanup();
  });
  return journal;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('a journal whose files cannot grow (file-size limit)', () => {
  it('a card-data scrub the disk refuses is tried again, not thrown out of the event loop; done once the disk takes it', async () => {
    const journal = openJournal();
    journal.insert({
      clientTransactionId: 's-1',
      kind: 'sale',
      amount: 100,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T00:00:00.000Z',
      cardSecret: { encryptedData: 'AB'.repeat(200), ksn: '01', expiry: '2812', pinblock: 'CD'.repeat(8) },
    });
    journal.update('s-1', { state: 'approved' });
    // The scrub runs on the next turn of the event loop: by then nothing can be written past the journal file's start.
    limitFileSize(0);
    await tick();
    await tick();
    limitFileSize('unlimited');
    expect(journal.scrubPending).toBe(true);
    await untilTrue('the pending scrub done', () => !journal.scrubPending, { everyMs: 50 });
    expect(statSync(`${journal.file}-wal`).size).toBe(0);
  });

  it('after a refused write, "writable again" is proved by a real commit, not by a rolled-back probe the limit lets through', () => {
    const journal = openJournal();
    journal.insert({
      clientTransactionId: 's-2',
      kind: 'sale',
      amount: 100,
      currency: 'EUR',
      state: 'approved',
      clientDateTime: '2026-01-01T00:00:00.000Z',
    });
    journal.scrub();
    limitFileSize(statSync(`${journal.file}-wal`).size);
    try {
      expect(() =>
        journal.insert({
          clientTransactionId: 's-3',
          kind: 'sale',
          amount: 100,
          currency: 'EUR',
          state: 'awaiting_customer',
          clientDateTime: '2026-01-01T00:00:00.000Z',
        }),
      ).toThrow(/journal cannot write \(SQLITE_IOERR/);
      expect(journal.retryWrites()).toMatchObject({ writable: false });
    } finally {
      limitFileSize('unlimited');
    }
    expect(journal.retryWrites()).toMatchObject({ writable: true });
  });
});
