import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../examples/register.js';
import type { RunningAgent } from '../../src/agent.js';
import { runCli } from '../helpers/cli.js';
import { lossyProxy } from '../helpers/lossy-proxy.js';
import { storeNetworkAddress } from '../helpers/register-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The example register (examples/register.ts) from another machine of the store network
 * (docs/registers.md, "A worked example"): the whole agent with the listener on a
 * non-loopback address of this machine (another loopback address when it has none), the
 * example's command line run as a POS developer would, through a proxy on the store
 * network that loses the first sale answer.
 */
const address = storeNetworkAddress();
let running: TestAgent;
let agent: RunningAgent;
let dataDir: string;
let work: string;
let cliFlags: string[];
let cleanup: Array<() => void> = [];

async function example(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

async function pairingCode(): Promise<string> {
  const offer = await runCli([...cliFlags, 'registers', 'pair']);
  expect(offer.code, offer.stderr).toBe(0);
  const code = /pairing code (\d{4} \d{4})/.exec(offer.stdout)?.[1];
  expect(code).toBeDefined();
  return code!;
}

/** The proxy on the store network, in front of the listener, with the terminal's own certificate. */
function storeNetworkProxy() {
  const lan = join(dataDir, 'lan');
  return lossyProxy(new URL(agent.lan!.url), {
    drops: 1,
    host: address,
    tls: { key: readFileSync(join(lan, 'server.key'), 'utf8'), cert: readFileSync(join(lan, 'server.crt'), 'utf8') },
  });
}

const sales = () => agent.payments.list().filter((t) => t.kind === 'sale');

beforeAll(async () => {
  const data = tempDir('terminal-agent-example-lan-');
  const files = tempDir('terminal-agent-register-');
  cleanup = [data.cleanup, files.cleanup];
  dataDir = data.dir;
  work = files.dir;
  running = await startTestAgent({
    flags: { dataDir, api: { port: 0, lan: { enabled: true, host: address, port: 0, hostNames: [address] } } },
  });
  agent = running.agent;
  expect(agent.lan).toBeDefined();
  cliFlags = ['--data-dir', dataDir, '--api-port', new URL(agent.url).port];
});

afterAll(async () => {
  await running?.stop();
  for (const c of cleanup) c();
});

describe('the example register on the store network', () => {
  it('pairs with the code and fingerprint the terminal shows, sells, loses the answer, repeats with the same key: one sale charged, receipt printed', async () => {
    const proxy = storeNetworkProxy();
    const url = await proxy.start();
    const file = join(work, 'till8.json');
    try {
      const paired = await example([
        'pair',
        '--url',
        url,
        '--fingerprint',
        agent.lan!.fingerprint.toLowerCase(),
        '--code',
        await pairingCode(),
        '--name',
        'Till 8',
        '--register-file',
        file,
      ]);
      expect(paired.code, paired.err).toBe(0);
      expect(paired.out).toContain(agent.lan!.fingerprint);
      // The key and the pinned certificate are kept for the register only, never shown.
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string; certificate: string; url: string };
      expect(kept.url).toBe(url);
      expect(new X509Certificate(kept.certificate).fingerprint256).toBe(agent.lan!.fingerprint);
      expect(paired.out + paired.err).not.toContain(kept.apiKey);

      // The card is presented a little later, so the sale is still running when the repeat arrives.
      agent.simulated!.reader.nextCard({ entryMode: 'ContactChip', delayMs: 400 });
      const sold = await example([
        'sale',
        '--register-file',
        file,
        '--amount',
        '23.45',
        '--currency',
        'EUR',
        '--reference',
        'Till 8 / 0815',
      ]);
      expect(sold.code, sold.err).toBe(0);
      const id = /^sale (\S+): approved /m.exec(sold.out)?.[1];
      expect(id, sold.out).toBeDefined();
      // The receipt, laid out for a 32-column printer.
      expect(sold.out).toContain('APPROVED');
      expect(sold.out).toMatch(/23[.,]45/);
      const receiptLines = sold.out
        .split('\n')
        .slice(1)
        .filter((l) => l !== '');
      expect(receiptLines.length).toBeGreaterThan(5);
      expect(receiptLines.every((l) => l.length <= 32)).toBe(true);
      expect(sold.out + sold.err).not.toContain(kept.apiKey);

      // The answer really was lost once and the request really was sent twice.
      expect(proxy.stats).toEqual({ droppedSales: 1, saleRequests: 2, droppedEvents: 1 });
      expect(sold.err).toMatch(/no answer .*same Idempotency-Key/);
      expect(sold.err).toMatch(/events: resumed after event \d+/);
      // Exactly one sale in the journal and charged once on the platform.
      expect(sales()).toHaveLength(1);
      expect(sales()[0]).toMatchObject({
        clientTransactionId: id,
        reference: 'Till 8 / 0815',
        amount: 2345,
        state: 'approved',
      });
      expect(agent.demoPlatform!.payments.netCharged(id!)).toBe(2345);
    } finally {
      await proxy.close();
    }
  });

  it('sends nothing when the certificate is not the one whose fingerprint the terminal shows', async () => {
    const file = join(work, 'wrong.json');
    const code = await pairingCode();
    const wrong = agent.lan!.fingerprint.replace(/^../, agent.lan!.fingerprint.startsWith('00') ? '11' : '00');
    const refused = await example([
      'pair',
      '--url',
      agent.lan!.url,
      '--fingerprint',
      wrong,
      '--code',
      code,
      '--name',
      'Till 9',
      '--register-file',
      file,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/presents the certificate .* not .*nothing was sent/);
    expect(existsSync(file)).toBe(false);
    // The code was not spent: the right fingerprint pairs with it.
    const paired = await example([
      'pair',
      '--url',
      agent.lan!.url,
      '--fingerprint',
      agent.lan!.fingerprint,
      '--code',
      code,
      '--name',
      'Till 9',
      '--register-file',
      file,
    ]);
    expect(paired.code, paired.err).toBe(0);
  });

  it('refuses an unpaired and a revoked register with a message saying to pair, and sells nothing', async () => {
    const before = sales().length;
    const unpaired = await example([
      'sale',
      '--register-file',
      join(work, 'never-paired.json'),
      '--amount',
      '1.00',
      '--reference',
      'Till 0 / 1',
    ]);
    expect(unpaired.code).toBe(1);
    expect(unpaired.err).toMatch(/not paired; run "register pair/);

    const file = join(work, 'till10.json');
    const paired = await example([
      'pair',
      '--url',
      agent.lan!.url,
      '--fingerprint',
      agent.lan!.fingerprint,
      '--code',
      await pairingCode(),
      '--name',
      'Till 10',
      '--register-file',
      file,
    ]);
    expect(paired.code, paired.err).toBe(0);
    const { register } = JSON.parse(readFileSync(file, 'utf8')) as { register: { id: string } };
    const revoked = await runCli([...cliFlags, 'registers', 'revoke', register.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await example(['sale', '--register-file', file, '--amount', '1.00', '--reference', 'Till 10 / 1']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /refused this register \(401\): unknown or revoked register key: pair the register again/,
    );
    expect(sales()).toHaveLength(before);
    // A made-up key with the right pinned certificate fares no better.
    const forged = join(work, 'forged.json');
    writeFileSync(forged, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), apiKey: 'made-up-key' }), {
      mode: 0o600,
    });
    const stranger = await example([
      'sale',
      '--register-file',
      forged,
      '--amount',
      '1.00',
      '--reference',
      'Till 11 / 1',
    ]);
    expect(stranger.code).toBe(1);
    expect(stranger.err).toMatch(/refused this register \(401\): unknown or revoked register key/);
    expect(sales()).toHaveLength(before);
  });
});
