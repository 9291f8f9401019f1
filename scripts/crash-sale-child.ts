/**
 * A terminal that starts card sales against a platform and stays up until it is killed:
 * the crash test kills it with SIGKILL while the requests are open, then recovers the
 * journal it left. Usage: node dist/scripts/crash-sale-child.js '<json options>'
 * Prints one JSON line {"inFlight": [...client ids]} once every sale's request has left.
 */
import { pino } from 'pino';
import { z } from 'zod';
import { AuthService } from '../src/auth/index.js';
import { configSchema } from '../src/config/schema.js';
import { createLogger } from '../src/core/logger.js';
import type { CardResult, Peripherals } from '../src/devices/api.js';
import { EventBus } from '../src/events/bus.js';
import { createMtlsDispatcher, loadIdentity } from '../src/identity/index.js';
import { HostDispatchers } from '../src/platform/dispatchers.js';
import { PlatformClient } from '../src/platform/client.js';
import { Journal } from '../src/payments/journal/index.js';
import { PaymentService } from '../src/payments/service.js';

const optionsSchema = z.strictObject({
  apiUrl: z.string(),
  mtlsUrl: z.string(),
  certFile: z.string(),
  keyFile: z.string(),
  caFile: z.string(),
  dataDir: z.string(),
  sales: z.array(z.strictObject({ amount: z.number().int().positive(), currency: z.string().default('EUR'), merchantId: z.string().optional() })),
});

const card: CardResult = {
  outcome: 'ok',
  entryMode: 'ContactlessChip',
  card: { maskedPan: '411111******1111', scheme: 'VISA', expiry: '2812', encryptedData: 'ENCRYPTED-CRASH-TEST', ksn: 'FFFF0000000001' },
};

const devices: Peripherals = {
  reader: { connected: true, info: { model: 'instant' }, readCard: async () => card, showResult: async () => {} },
  display: { connected: true, showQr: async () => {}, showText: async () => {}, clear: async () => {} },
  scanner: { connected: true, nextScan: () => new Promise(() => {}) },
};

async function main(): Promise<void> {
  const opts = optionsSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const log = createLogger({ level: 'warn', pretty: false, destination: pino.destination({ dest: 2, sync: true }) });
  const identity = loadIdentity({ certFile: opts.certFile, keyFile: opts.keyFile, caFile: opts.caFile });
  const dispatchers = new HostDispatchers(() => createMtlsDispatcher(identity, { connectTimeoutMs: 2_000, headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000 }));
  const auth = new AuthService({
    identity,
    endpoints: { authUrl: opts.apiUrl, deviceAuthUrl: opts.mtlsUrl },
    dispatchers,
    settings: { mode: 'client_credentials', refreshRatio: 0.8, leewaySeconds: 30, backoffBaseMs: 100, backoffCapMs: 1_000 },
    log,
  });
  await auth.start();
  const config = configSchema.parse({ dataDir: opts.dataDir });
  const journal = new Journal({ dataDir: opts.dataDir });
  const platform = new PlatformClient({ baseUrl: opts.mtlsUrl, dispatchers, tokens: auth, log, headersTimeoutMs: 60_000 });
  const service = new PaymentService({ journal, platform, peripherals: devices, bus: new EventBus(), log, config });
  const ids: string[] = [];
  for (const sale of opts.sales) {
    const started = await service.startSale({ method: 'card', amount: sale.amount, currency: sale.currency, ...(sale.merchantId ? { merchantId: sale.merchantId } : {}) });
    ids.push(started.clientTransactionId);
    // The next sale may use the reader once this one's request is on its way.
    while (journal.get(started.clientTransactionId)?.state !== 'in_flight') await new Promise((r) => setTimeout(r, 2));
  }
  // Give the last request time to leave the process before announcing it.
  await new Promise((r) => setTimeout(r, 100));
  process.stdout.write(`${JSON.stringify({ inFlight: ids })}\n`);
  // Wait to be killed.
  setInterval(() => {}, 60_000);
}

main().catch((err: unknown) => {
  process.stderr.write(`crash-sale-child: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
