import Database from 'better-sqlite3';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOfflineSchema } from '../../src/offline/schema.js';
import { JOURNAL_FILE } from '../../src/payments/journal/index.js';
import { runDiagnostics, scrubLogLine, scrubText, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort, diagConfig } from './diag-setup.js';

function check(r: DiagReport, id: string): CheckResult {
  const c = r.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id}`);
  return c;
}

const HOUR = 3_600_000;

/** A journal database with only what the queue needs: the transactions it references and the queue itself. */
function journalWith(
  dir: string,
  items: Array<{ id: string; amount: number; currency: string; state: string; storedAt: number }>,
): void {
  const db = new Database(join(dir, JOURNAL_FILE));
  db.exec('CREATE TABLE transactions (client_id TEXT PRIMARY KEY)');
  ensureOfflineSchema(db);
  for (const it of items) {
    db.prepare('INSERT INTO transactions (client_id) VALUES (?)').run(it.id);
    db.prepare(
      `INSERT INTO offline_queue (client_id, amount, currency, client_date_time, masked_pan, body, state, stored_at, updated_at)
       VALUES (?, ?, ?, ?, '476173******0010', '{"instrument":{"card":{"encryptedData":"SECRET-CARD-BLOB"}}}', ?, ?, ?)`,
    ).run(it.id, it.amount, it.currency, new Date(it.storedAt).toISOString(), it.state, it.storedAt, it.storedAt);
  }
  db.close();
}

describe('diag offline queue', () => {
  let apiPort: number;
  const urls = { api: 'https://127.0.0.1:1', mtls: 'https://127.0.0.1:1' };
  beforeAll(async () => {
    apiPort = await closedPort();
  });

  async function offline(dir: string, now: number): Promise<CheckResult> {
    const loaded = diagConfig(dir, urls, apiPort);
    return check(
      (await runDiagnostics({ loadConfig: () => loaded, now: () => now, checkTimeoutMs: 5_000 })).report,
      'offline',
    );
  }

  it('counts stored sales with totals and the oldest age, and warns about items needing attention, without card data', async () => {
    const t = tempDir('terminal-agent-diag-offline-');
    try {
      const now = Date.now();
      journalWith(t.dir, [
        { id: 'T-1', amount: 1250, currency: 'EUR', state: 'queued', storedAt: now - 3 * HOUR },
        { id: 'T-2', amount: 500, currency: 'EUR', state: 'needs_attention', storedAt: now - 2 * HOUR },
        { id: 'T-3', amount: 900, currency: 'EUR', state: 'uploaded', storedAt: now - 1 * HOUR },
      ]);
      const c = await offline(t.dir, now);
      expect(c.status).toBe('warn');
      expect(c.finding).toMatch(/^2\/500 stored \(.*17[.,]50.*\), oldest 3 h \(limit 24 h\); 1 need attention/);
      expect(c.facts).toMatchObject({
        count: 2,
        totals: { EUR: 1750 },
        needsAttention: 1,
        oldestClientTransactionId: 'T-1',
      });
      expect(JSON.stringify(c)).not.toContain('SECRET-CARD-BLOB');
    } finally {
      t.cleanup();
    }
  });

  it('fails when the oldest stored sale is past offline.maxAgeHours, and is ok with an empty queue', async () => {
    const t = tempDir('terminal-agent-diag-offline-');
    try {
      const now = Date.now();
      journalWith(t.dir, [{ id: 'T-9', amount: 100, currency: 'EUR', state: 'queued', storedAt: now - 25 * HOUR }]);
      const c = await offline(t.dir, now);
      expect(c.status).toBe('fail');
      expect(c.remedy).toMatch(/online/);
      const empty = tempDir('terminal-agent-diag-offline-');
      try {
        journalWith(empty.dir, []);
        expect(await offline(empty.dir, now)).toMatchObject({ status: 'ok', finding: 'queue empty' });
      } finally {
        empty.cleanup();
      }
    } finally {
      t.cleanup();
    }
  });
});

describe('diag check timeout', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port: number;
  beforeAll(async () => {
    // Accepts connections and never says a word: a hung host.
    server = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('bounds every platform check by the check timeout when the host never answers', async () => {
    const t = tempDir('terminal-agent-diag-hang-');
    try {
      const url = `https://127.0.0.1:${port}`;
      const loaded = diagConfig(t.dir, { api: url, mtls: url }, await closedPort());
      const r = (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 400 })).report;
      for (const id of ['clock', 'tls.device-auth', 'tls.api', 'token', 'platform']) {
        expect(check(r, id).status, id).toBe('fail');
        expect(check(r, id).finding, id).toMatch(/in time|within 400 ms|not reachable|connect/);
      }
      expect(check(r, 'offline').status).toBe('ok');
    } finally {
      t.cleanup();
    }
  });
});

describe('diag scrubbing', () => {
  it('removes JWTs, bearer credentials, secret=value pairs, long hex runs, PEM blocks and Luhn-valid card numbers from text', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXJtaW5hbCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const out = scrubText(
      `t=${jwt} Bearer abc.def-ghi client_secret=s3cr3t "password": "pw" key 6d0f3a1b2c4e5f60718293a4b5c6d7e8 -----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY----- pan 4761739001010010 masked 476173******0010 order 1234567890123`,
    );
    for (const gone of [
      jwt,
      'abc.def-ghi',
      's3cr3t',
      '"pw"',
      '6d0f3a1b2c4e5f60718293a4b5c6d7e8',
      'MIGH',
      '4761739001010010',
    ])
      expect(out).not.toContain(gone);
    expect(out).toContain('476173******0010');
    // Not a card number (fails the Luhn check): kept, so ids stay readable.
    expect(out).toContain('1234567890123');
  });

  it('keeps JSON log lines JSON, with numbers such as time untouched and secret keys replaced at any depth', () => {
    const line = JSON.stringify({
      time: 1764109000000,
      msg: 'x',
      nested: { refresh_token: 'rt', deeper: [{ Password: 'p' }] },
      checks: { token: { ok: true } },
    });
    const scrubbed = JSON.parse(scrubLogLine(line)) as Record<string, unknown>;
    expect(scrubbed).toEqual({
      time: 1764109000000,
      msg: 'x',
      nested: { refresh_token: '[redacted]', deeper: [{ Password: '[redacted]' }] },
      checks: { token: { ok: true } },
    });
  });
});
