import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CardData, PinData } from '../../src/devices/index.js';
import { createOffline, type Offline } from '../../src/offline/index.js';
import type { OfflineHook } from '../../src/payments/offline-hook.js';
import { JournalWriter, offlineSaleReports, type PaymentsPlatform } from '../../src/payments/index.js';
import { PlatformError } from '../../src/platform/errors.js';
import type { PlatformClient } from '../../src/platform/client.js';
import { visaCard } from '../helpers/fake-peripherals.js';
import { offlineConfig } from '../helpers/offline-sales.js';
import { useDemoPlatform, type Terminal } from '../helpers/payment-terminal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Journal, JOURNAL_FILE, SCRUB_HOLD_MAX_MS } from '../../src/payments/journal/journal.js';

/**
 * Card data at rest (docs/journal.md, "Journal", card data lifetime): once the sales
 * are final, no byte of any file in the data directory (journal, -wal, -shm, marker...)
 * holds the reader's encrypted card data or a PIN block. Before secure_delete and the
 * write-ahead log scrub, the cleared values stayed readable in freed cells and pages and in
 * the log's older page images.
 */

const fixture = useDemoPlatform();
let offline: Offline | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await offline?.uploader.stop();
  offline = undefined;
  for (const c of cleanups.splice(0).reverse()) c();
});

// Distinct, searchable stand-ins for what a reader hands over (encrypted, opaque).
const ONLINE_CARD = 'A1A1A1A1A1A1A1A10123456789ABCDEF0123456789ABCDEF0123456789ABCDE1';
const ONLINE_PIN = 'B2B2B2B2C3C3C3C3';
const OFFLINE_CARD = 'C3C3C3C3C3C3C3C30123456789ABCDEF0123456789ABCDEF0123456789ABCDE2';
const OFFLINE_PIN_CARD = 'D4D4D4D4D4D4D4D40123456789ABCDEF0123456789ABCDEF0123456789ABCDE3';
const OFFLINE_PIN = 'E5E5E5E5F6F6F6F6';
const SECRETS = [ONLINE_CARD, ONLINE_PIN, OFFLINE_CARD, OFFLINE_PIN_CARD, OFFLINE_PIN];

const card = (encryptedData: string): CardData => ({ ...visaCard(), encryptedData });
const pin = (pinblock: string): PinData => ({ pinblock, ksn: 'FFFF000001', format: 'ISO0' });

/** Which of the secrets appear anywhere in the raw bytes of the files under `dir`. */
function secretsOnDisk(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(dir);
  const found = new Set<string>();
  for (const f of files) {
    const bytes = readFileSync(f);
    for (const s of SECRETS)
      if (bytes.includes(Buffer.from(s, 'latin1'))) found.add(`${s} in ${f.slice(dir.length + 1)}`);
  }
  return [...found];
}

/** After the transaction that cleared card data, the scrub runs on the next turns of the event loop. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('card data at rest in the data directory', () => {
  it('after an online PIN sale and an offline sale reach their final state, no file holds their card data or PIN block', async () => {
    let down = false;
    let client: PlatformClient | undefined;
    // The process call never reaches the platform while `down` (connection refused).
    const wrap = (p: PaymentsPlatform): PaymentsPlatform => {
      client = p as PlatformClient;
      return new Proxy(p, {
        get(target, prop) {
          if (prop === 'process' && down) {
            return () =>
              Promise.reject(
                new PlatformError('connect ECONNREFUSED', {
                  category: 'network',
                  operation: 'process',
                  method: 'POST',
                  outcomeUnknown: false,
                  transportCode: 'ECONNREFUSED',
                }),
              );
          }
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
    };
    const hook: OfflineHook = {
      allowed: (s) => offline!.hook.allowed(s),
      eligible: (c) => offline!.hook.eligible(c),
      store: (s) => offline!.hook.store(s),
    };
    const t: Terminal = await fixture.startTerminal({ wrap, offline: hook });
    offline = createOffline({
      db: t.journal.db,
      reports: offlineSaleReports(new JournalWriter(t.journal, t.bus), fixture.demo.log),
      platform: {
        isAvailable: async () => !down && (await client!.isAvailable()),
        process: (b, o) => client!.process(b, o),
        status: (id, o) => client!.status(id, o),
      },
      bus: t.bus,
      log: fixture.demo.log,
      config: offlineConfig(),
      backoff: { baseMs: 5, capMs: 40 },
    });

    // 1. Online, with a PIN block: approved.
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: card(ONLINE_CARD), pin: pin(ONLINE_PIN) });
    const online = await (await t.service.startSale({ method: 'card', amount: 2_000, currency: 'EUR' })).done;
    expect(online.state, online.message).toBe('approved');

    // 2. Offline, approved by the chip: stored with its card data until uploaded.
    down = true;
    t.devices.reader.next({ outcome: 'ok', entryMode: 'ContactChip', card: card(OFFLINE_CARD), offlineApproved: true });
    const stored = await (await t.service.startSale({ method: 'card', amount: 1_500, currency: 'EUR' })).done;
    expect(stored.state, stored.message).toBe('offline_stored');
    // The search sees card data while a sale still needs it (the check can fail).
    expect(secretsOnDisk(t.dataDir).some((f) => f.startsWith(OFFLINE_CARD))).toBe(true);

    // 3. Offline, but the card asked for online PIN: not taken offline, nothing charged.
    t.devices.reader.next({
      outcome: 'ok',
      entryMode: 'ContactChip',
      card: card(OFFLINE_PIN_CARD),
      pin: pin(OFFLINE_PIN),
      offlineApproved: true,
    });
    const refused = await (await t.service.startSale({ method: 'card', amount: 1_200, currency: 'EUR' })).done;
    expect(refused).toMatchObject({ state: 'failed', offline: false });
    expect(refused.message).toMatch(/online PIN.*cannot be taken offline.*nothing was charged/);
    expect(offline.list().map((i) => i.clientTransactionId)).toEqual([stored.clientTransactionId]);

    // The platform is back: the offline sale is uploaded and final; its card data dropped.
    down = false;
    const report = await offline.uploader.flush();
    expect(report.uploaded, JSON.stringify(report)).toBe(1);
    expect(t.service.row(stored.clientTransactionId)?.state).toBe('approved');

    await settle();
    expect(t.journal.scrubPending).toBe(false);
    expect(secretsOnDisk(t.dataDir)).toEqual([]);
    expect(t.journal.db.prepare('SELECT COUNT(*) FROM transactions WHERE card_secret IS NOT NULL').pluck().get()).toBe(
      0,
    );
  });

  it('an offline sale never stores a PIN block: the journal row drops it even when asked to keep it', async () => {
    const t: Terminal = await fixture.startTerminal();
    t.journal.insert({
      clientTransactionId: 'pin-1',
      kind: 'sale',
      method: 'card',
      amount: 100,
      currency: 'EUR',
      state: 'in_flight',
      clientDateTime: '2026-01-01T10:00:00.000Z',
      cardSecret: {
        encryptedData: OFFLINE_PIN_CARD,
        ksn: 'K',
        expiry: '2812',
        pinblock: OFFLINE_PIN,
        pinKsn: 'K2',
        pinblockFormat: 'ISO0',
      },
    });
    const row = t.journal.update('pin-1', { state: 'offline_stored', offline: true });
    expect(row.cardSecret).toEqual({ encryptedData: OFFLINE_PIN_CARD, ksn: 'K', expiry: '2812' });
    await settle();
    expect(secretsOnDisk(t.dataDir)).toEqual([`${OFFLINE_PIN_CARD} in journal.sqlite`]);
  });
});

describe('the card-data scrub held for an upload round (Journal.holdScrub)', () => {
  /** Timers that fire only when the test says so. */
  function manualTimers(): {
    clock: {
      wall: () => number;
      setTimeout: (fn: () => void, ms: number) => number;
      clearTimeout: (h: unknown) => void;
    };
    fire: (ms: number) => void;
  } {
    const pending = new Map<number, { fn: () => void; ms: number }>();
    let next = 0;
    return {
      clock: {
        wall: () => Date.now(),
        setTimeout: (fn, ms) => {
          pending.set(++next, { fn, ms });
          return next;
        },
        clearTimeout: (h) => void pending.delete(h as number),
      },
      fire: (ms) => {
        for (const [h, t] of [...pending]) {
          if (t.ms !== ms) continue;
          pending.delete(h);
          t.fn();
        }
      },
    };
  }

  const SECRET = 'F7F7F7F7F7F7F7F70123456789ABCDEF0123456789ABCDEF0123456789ABCDE4';

  function saleWithCardData(journal: Journal, id: string): void {
    journal.insert({
      clientTransactionId: id,
      kind: 'sale',
      amount: 1_000,
      currency: 'EUR',
      method: 'card',
      state: 'in_flight',
      clientDateTime: new Date().toISOString(),
      cardSecret: { encryptedData: SECRET, ksn: 'FFFF01', expiry: '2812' },
    });
  }

  const walBytes = (dir: string): number => statSync(join(dir, `${JOURNAL_FILE}-wal`)).size;

  it('sales cleared during the hold are scrubbed once, when it ends; no card data is left on disk', async () => {
    const tmp = tempDir('journal-hold-');
    cleanups.push(tmp.cleanup);
    const timers = manualTimers();
    const journal = new Journal({ dataDir: tmp.dir, clock: timers.clock });
    cleanups.push(() => journal.close());
    const release = journal.holdScrub();
    for (const id of ['held-1', 'held-2']) {
      saleWithCardData(journal, id);
      journal.update(id, { state: 'approved' });
      await settle();
    }
    // Held: the cleared card data is still in the log, and the scrub is only pending.
    expect(journal.scrubPending).toBe(true);
    expect(walBytes(tmp.dir)).toBeGreaterThan(0);
    release();
    expect(journal.scrubPending).toBe(false);
    expect(walBytes(tmp.dir)).toBe(0);
    expect(readFileSync(join(tmp.dir, JOURNAL_FILE)).includes(Buffer.from(SECRET, 'latin1'))).toBe(false);
    // A second release does nothing; later clears scrub on the next turn again.
    release();
    saleWithCardData(journal, 'after');
    journal.update('after', { state: 'approved' });
    await settle();
    expect(journal.scrubPending).toBe(false);
  });

  it('a hold never released keeps card data in the log for SCRUB_HOLD_MAX_MS at most', async () => {
    const tmp = tempDir('journal-hold-');
    cleanups.push(tmp.cleanup);
    const timers = manualTimers();
    const journal = new Journal({ dataDir: tmp.dir, clock: timers.clock });
    cleanups.push(() => journal.close());
    journal.holdScrub();
    saleWithCardData(journal, 'held');
    journal.update('held', { state: 'approved' });
    await settle();
    expect(journal.scrubPending).toBe(true);
    timers.fire(SCRUB_HOLD_MAX_MS);
    expect(journal.scrubPending).toBe(false);
    expect(walBytes(tmp.dir)).toBe(0);
  });
});
