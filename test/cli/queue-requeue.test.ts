import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlatformError } from '../../src/platform/errors.js';
import { offlineApiSource } from '../../src/ui/shared/offline-source.js';
import { runCli } from '../helpers/cli.js';
import { ENCRYPTED, localFixture, storeOfflineSale, type LocalFixture } from '../helpers/offline-sales.js';
import { startApi, type Started } from '../helpers/local-api.js';

const run = runCli;

let f: LocalFixture | undefined;
let api: Started | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  f?.close();
  f = undefined;
});

/** One sale the platform refused until it needs attention, one still queued; the agent's local API over them. */
async function agentWithAttention(): Promise<{ f: LocalFixture; api: Started; flags: string[] }> {
  f = localFixture(
    { maxAttempts: 1 },
    {
      isAvailable: async () => true,
      process: async () => {
        throw new PlatformError('platform refused process (422): VALIDATION: merchant blocked', {
          category: 'rejected',
          operation: 'process',
          method: 'POST',
          status: 422,
          outcomeUnknown: false,
        });
      },
      status: () => Promise.reject(new Error('not used')),
    },
  );
  storeOfflineSale(f.journal, f.offline, { id: 'na-1', amount: 1234 });
  await f.offline.uploader.flush();
  storeOfflineSale(f.journal, f.offline, { id: 'q-1', amount: 500 });
  api = await startApi({ dataDir: join(f.dir, 'data'), extra: { offline: offlineApiSource(f.offline) } });
  return { f, api, flags: ['--data-dir', join(f.dir, 'data'), '--api-port', new URL(api.url).port] };
}

describe('terminal-agent queue requeue', () => {
  it('queues a sale needing attention again through the running agent', async () => {
    const { f, flags } = await agentWithAttention();
    expect(f.offline.get('na-1')?.state).toBe('needs_attention');
    const r = await run([...flags, 'queue', 'requeue', 'na-1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'offline sale na-1 (12.34 EUR, 476173******0010) is queued again: the agent uploads it when the platform is reachable\n',
    );
    expect(f.offline.get('na-1')).toMatchObject({ state: 'queued', rejections: 0 });
    expect(f.journal.get('na-1')?.state).toBe('offline_stored');
    expect(r.stdout).not.toContain(ENCRYPTED);
  });

  it('--json prints the item only', async () => {
    const { flags } = await agentWithAttention();
    const r = await run([...flags, 'queue', 'requeue', 'na-1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      item: expect.objectContaining({
        clientTransactionId: 'na-1',
        state: 'queued',
        attempts: 1,
        lastMessage: 'queued again by staff',
        amount: 1234,
        currency: 'EUR',
      }),
    });
  });

  it("refuses a sale that does not need attention and an unknown one with the agent's message", async () => {
    const { f, flags } = await agentWithAttention();
    const queued = await run([...flags, 'queue', 'requeue', 'q-1']);
    expect(queued).toMatchObject({ code: 1, stdout: '' });
    expect(queued.stderr).toBe(
      'terminal-agent: offline sale q-1 is queued: only a sale needing attention can be queued again [PAYMENT_STATE]\n',
    );
    const missing = await run([...flags, 'queue', 'requeue', 'nope']);
    expect(missing).toMatchObject({
      code: 1,
      stderr: 'terminal-agent: no offline sale nope in the queue [OFFLINE_NOT_FOUND]\n',
    });
    const badId = await run([...flags, 'queue', 'requeue', 'a b']);
    expect(badId).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/must be a transaction id .*\[API_BAD_REQUEST\]/),
    });
    expect(f.offline.get('na-1')?.state).toBe('needs_attention');
  });

  it('says so when no agent is running', async () => {
    f = localFixture();
    const r = await run(['--data-dir', join(f.dir, 'data'), '--api-port', '1', 'queue', 'requeue', 'na-1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no local API token|not running/);
  });
});
