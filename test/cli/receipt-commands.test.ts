import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http-client.js';
import { runCli } from '../helpers/cli.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `terminal-agent receipt ID` and `terminal-agent end-of-day` against a running agent
 * (docs/receipts.md): the CLI prints what the local API lays out for the printer, JSON with
 * --json, and refuses options it does not take with exit 64.
 */
let t: TestAgent;
let flags: string[];
let cleanup: () => void;
let saleId: string;
let bearer: Record<string, string>;

beforeAll(async () => {
  const data = tempDir('terminal-agent-cli-receipt-');
  cleanup = data.cleanup;
  t = await startTestAgent({ flags: { dataDir: data.dir, receipts: { timeZone: 'America/New_York' } }, level: 'info' });
  flags = ['--data-dir', data.dir, '--api-port', new URL(t.agent.url).port];
  bearer = { authorization: `Bearer ${t.agent.localToken}` };
  const r = await runCli([...flags, 'sale', '7.50', '--json', '--poll-ms', '100']);
  expect(r.code, r.stderr).toBe(0);
  saleId = (JSON.parse(r.stdout) as { transaction: { clientTransactionId: string } }).transaction.clientTransactionId;
}, 60_000);
afterAll(async () => {
  await t?.stop();
  cleanup?.();
});

async function api(path: string): Promise<string> {
  const r = await call(t.agent.url, 'GET', path, { headers: bearer });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

describe('terminal-agent receipt', () => {
  it('prints the customer copy for 32 columns by default, as the local API lays it out', async () => {
    const r = await runCli([...flags, 'receipt', saleId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(await api(`/api/v1/transactions/${saleId}/receipt?format=text`));
    expect(r.stdout).toContain('CUSTOMER COPY');
    expect(r.stdout).toMatch(/^Operator {21}cli$/m);
    expect(r.stdout.split('\n').every((l) => l.length <= 32)).toBe(true);
  });

  it('--copy merchant --width 48, and --json', async () => {
    const r = await runCli([...flags, 'receipt', saleId, '--copy', 'merchant', '--width', '48']);
    expect(r.stdout).toBe(await api(`/api/v1/transactions/${saleId}/receipt?format=text&copy=merchant&width=48`));
    const j = await runCli([...flags, 'receipt', saleId, '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual(JSON.parse(await api(`/api/v1/transactions/${saleId}/receipt`)));
    expect(JSON.parse(j.stdout).receipt.dateTime.timeZone).toBe('America/New_York');
  });

  it('refuses a width the printers do not have (exit 64) and names an unknown transaction (exit 1)', async () => {
    const bad = await runCli([...flags, 'receipt', saleId, '--width', '40']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("argument '40' is invalid");
    const unknown = await runCli([...flags, 'receipt', 'no-such-sale', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: {
        code: 'PAYMENT_NOT_FOUND',
        message: expect.stringContaining("no transaction no-such-sale in this terminal's journal"),
      },
    });
  });
});

describe('terminal-agent end-of-day', () => {
  it('prints the day as printer text (default), CSV and JSON, in the configured zone unless told', async () => {
    const text = await runCli([...flags, 'end-of-day']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('END OF DAY');
    expect(text.stdout).toMatch(/^Time zone {7}America\/New_York$/m);
    const json = JSON.parse((await runCli([...flags, 'end-of-day', '--json'])).stdout) as {
      endOfDay: { date: string; totals: Array<{ currency: string; sales: unknown }> };
    };
    expect(json.endOfDay.totals).toEqual([
      expect.objectContaining({ currency: 'EUR', sales: { count: 1, amount: 750 } }),
    ]);
    const date = json.endOfDay.date;
    const csv = await runCli([...flags, 'end-of-day', '--date', date, '--format', 'csv']);
    expect(csv.stdout).toBe(await api(`/api/v1/reports/end-of-day?date=${date}&format=csv`));
    const tokyo = await runCli([
      ...flags,
      'end-of-day',
      '--date',
      '2026-01-01',
      '--time-zone',
      'Asia/Tokyo',
      '--width',
      '48',
    ]);
    expect(tokyo.stdout).toContain('No transactions');
    expect(tokyo.stdout).toMatch(/^From {22}01\/01\/2026 00:00 GMT\+9$/m);
  });

  it('refuses a bad date or zone with what to give', async () => {
    const date = await runCli([...flags, 'end-of-day', '--date', '1.1.2026']);
    expect([date.code, date.stderr]).toEqual([64, 'terminal-agent: --date must be YYYY-MM-DD [USAGE]\n']);
    const zone = await runCli([...flags, 'end-of-day', '--time-zone', 'Berlin']);
    expect(zone.code).toBe(1);
    expect(zone.stderr).toBe(
      'terminal-agent: "Berlin" is not a time zone: give an IANA name such as Europe/Berlin or UTC [INPUT_INVALID]\n',
    );
    expect((await runCli([...flags, 'end-of-day', '--json', '--format', 'csv'])).code).toBe(64);
  });
});
