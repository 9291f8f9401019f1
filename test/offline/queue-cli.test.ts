import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OfflineApiSource } from '../../src/ui/shared/sources.js';
import { offlineApiSource } from '../../src/ui/shared/offline-source.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { ENCRYPTED, localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';
import { runCli } from '../helpers/cli.js';

const run = runCli;

let f: LocalFixture | undefined;
let api: Started | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  f?.close();
  f = undefined;
});

/** A queue with one sale refused twice and one stored, behind a platform answering as set. */
async function queueWithHistory(): Promise<LocalFixture> {
  let accept = false;
  const fx = localFixture(
    { maxAttempts: 5 },
    {
      isAvailable: async () => true,
      process: async (body) => {
        if (!accept) {
          const { PlatformError } = await import('../../src/platform/errors.js');
          throw new PlatformError('platform refused process (422): VALIDATION: merchant blocked', {
            category: 'rejected',
            operation: 'process',
            method: 'POST',
            status: 422,
            outcomeUnknown: false,
          });
        }
        return { serverTransactionId: `srv-${body.clientNewTransactionId}`, transactionStatus: 'Captured', events: [] };
      },
      status: () => Promise.reject(new Error('not used')),
    },
  );
  storeOfflineSale(fx.journal, fx.offline, { id: 'q-1', amount: 1234 });
  await fx.offline.uploader.flush();
  await fx.offline.uploader.flush();
  storeOfflineSale(fx.journal, fx.offline, { id: 'q-2', amount: 500, maskedPan: '541333******0004' });
  accept = true;
  return fx;
}

describe('terminal-agent queue', () => {
  it('ls shows levels and every item with its state, read-only from the data directory', async () => {
    f = await queueWithHistory();
    const flags = ['--data-dir', join(f.dir, 'data')];
    const r = await run([...flags, 'queue', 'ls']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^2 of 500 offline sales stored · 17\.34 EUR of 5000\.00 EUR · oldest /);
    expect(lines[1]).toMatch(
      /q-1\s+12\.34 EUR\s+queued\s+tries 2\s+476173\*\*\*\*\*\*0010\s+upload refused: .*merchant blocked/,
    );
    expect(lines[2]).toMatch(/q-2\s+5\.00 EUR\s+queued\s+tries 0\s+541333\*\*\*\*\*\*0004/);
    const only = await run([...flags, 'queue', 'ls', '--state', 'uploaded', '--json']);
    expect(JSON.parse(only.stdout)).toMatchObject({ items: [], levels: { count: { stored: 2 } } });
    const bad = await run([...flags, 'queue', 'ls', '--state', 'lost']);
    expect(bad.code).toBe(64); // a usage error (README, "Exit codes")
    expect(bad.stderr).toMatch(/unknown queue state "lost"/);
    expect(r.stdout + only.stdout).not.toContain(ENCRYPTED);
  });

  it('ls --limit 2 prints the two oldest and how many more there are; --after the next ones; --json gives `next`', async () => {
    f = localFixture();
    for (let i = 1; i <= 5; i++) {
      f.clock.now += 1_000;
      storeOfflineSale(f.journal, f.offline, { id: `l-${i}`, amount: 100 * i });
    }
    const flags = ['--data-dir', join(f.dir, 'data')];
    const r = await run([...flags, 'queue', 'ls', '--limit', '2']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^5 of 500 offline sales stored/);
    expect(lines[1]).toMatch(/ l-1 /);
    expect(lines[2]).toMatch(/ l-2 /);
    expect(lines[3]).toBe(
      '… and 3 more: --after l-2 lists the next ones, a higher --limit more at once, `queue export` all of them',
    );
    // A sale stored meanwhile (the agent writes while the CLI reads) comes on a later page, not twice.
    storeOfflineSale(f.journal, f.offline, { id: 'l-6' });
    const next = await run([...flags, 'queue', 'ls', '--limit', '2', '--after', 'l-2', '--json']);
    expect(next.code).toBe(0);
    const page = JSON.parse(next.stdout) as {
      items: Array<{ clientTransactionId: string }>;
      next?: string;
      more?: number;
    };
    expect(page.items.map((i) => i.clientTransactionId)).toEqual(['l-3', 'l-4']);
    expect(page).toMatchObject({ next: 'l-4', more: 2 });
    const last = await run([...flags, 'queue', 'ls', '--limit', '2', '--after', 'l-4']);
    expect(
      last.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => /l-\d/.exec(l)?.[0]),
    ).toEqual(['l-5', 'l-6']);
    const lastJson = JSON.parse(
      (await run([...flags, 'queue', 'ls', '--limit', '2', '--after', 'l-4', '--json'])).stdout,
    ) as object;
    expect(lastJson).not.toHaveProperty('next');
    // Default 100: six sales, no "more" line.
    const all = await run([...flags, 'queue', 'ls', '--state', 'queued']);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(7);
    expect(all.stdout).not.toMatch(/more/);
    for (const bad of ['0', 'x', '1e3', '1000000']) {
      const b = await run([...flags, 'queue', 'ls', '--limit', bad]);
      expect(b, bad).toMatchObject({
        code: 64,
        stderr: expect.stringMatching(/--limit must be a whole number from 1 to 999999/),
      });
    }
    const unknown = await run([...flags, 'queue', 'ls', '--after', 'nope-1']);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/after: no offline sale nope-1 in the queue/),
    });
  });

  it('show prints one item with its upload history; an unknown id is a clear error', async () => {
    f = await queueWithHistory();
    const flags = ['--data-dir', join(f.dir, 'data')];
    const r = await run([...flags, 'queue', 'show', 'q-1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^offline sale q-1: queued/);
    expect(r.stdout).toMatch(/tries\s+2 \(refused 2\)/);
    expect(r.stdout).toMatch(/card data held\s+yes, until the platform confirms/);
    expect(r.stdout.match(/rejected\s+422\s+platform refused process/g)).toHaveLength(2);
    expect(r.stdout).not.toContain(ENCRYPTED);
    const missing = await run([...flags, 'queue', 'show', 'nope']);
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no offline sale nope in the queue \[PAYMENT_NOT_FOUND\]/),
    });
    const noData = await run(['--data-dir', join(f.dir, 'elsewhere'), 'queue', 'ls']);
    expect(noData).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no journal at .*elsewhere.*: the agent has not run with this data directory/),
    });
  });

  it('export writes redacted CSV and JSON, to stdout or to a 0600 file', async () => {
    f = await queueWithHistory();
    const flags = ['--data-dir', join(f.dir, 'data')];
    const csv = await run([...flags, 'queue', 'export']);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^clientTransactionId,serverTransactionId,merchantId,state,/);
    const file = join(f.dir, 'export.json');
    const json = await run([...flags, 'queue', 'export', '--format', 'json', '--output', file]);
    expect(json).toMatchObject({ code: 0, stdout: `exported to ${file}\n` });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text).items.map((i: { clientTransactionId: string }) => i.clientTransactionId)).toEqual([
      'q-1',
      'q-2',
    ]);
    for (const t of [csv.stdout, text]) {
      expect(t).not.toContain(ENCRYPTED);
      expect(t).not.toMatch(/encryptedData|pinblock|ksn/i);
    }
    const bad = await run([...flags, 'queue', 'export', '--format', 'xml']);
    expect(bad).toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/argument 'xml' is invalid. Allowed choices are csv, json/),
    });
  });

  it('flush asks the running agent through the local API and prints what happened', async () => {
    f = await queueWithHistory();
    const source: OfflineApiSource = offlineApiSource(f.offline);
    api = await startApi({ dataDir: join(f.dir, 'data'), extra: { offline: source } });
    const flags = ['--data-dir', join(f.dir, 'data'), '--api-port', new URL(api.url).port];
    const r = await run([...flags, 'queue', 'flush']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^uploaded 2, declined after upload 0, refused 0, need attention 0, deferred 0; 0 waiting/,
    );
    expect(f.offline.get('q-1')).toMatchObject({ state: 'uploaded', serverTransactionId: 'srv-q-1' });
    expect(f.journal.get('q-2')?.state).toBe('approved');
    // The local API shows the levels the same source gives.
    const again = await run([...flags, 'queue', 'flush', '--json']);
    expect(JSON.parse(again.stdout).result).toMatchObject({ platform: 'online', attempted: 0, remaining: 0 });
  });

  it('flush without a running agent says so', async () => {
    f = localFixture();
    const r = await run(['--data-dir', join(f.dir, 'data'), '--api-port', '1', 'queue', 'flush']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no local API token|not running/);
  });
});
