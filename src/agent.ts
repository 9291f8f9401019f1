import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  packageVersion,
  resolvePlatformTimeZone,
  resolveSecureEndpoints,
  type Config,
  type PlatformEndpoints,
} from './config/index.js';
import {
  AgentError,
  ErrorCodes,
  describeError,
  isAgentError,
  notifySystemdReady,
  systemClock,
  type Clock,
  type Logger,
} from './core/index.js';
import { EventBus } from './events/index.js';
import {
  certificateStatus,
  createMtlsDispatcher,
  devCertPaths,
  generateDevCerts,
  loadIdentity,
  type DeviceIdentity,
} from './identity/index.js';
import { AuthService, StaffSignIn } from './auth/index.js';
import { HostDispatchers, PlatformClient, PlatformWatch } from './platform/index.js';
import {
  AuditLog,
  IdempotencyKeys,
  Journal,
  JournalPruner,
  offlineSaleReports,
  JournalWriter,
  PaymentService,
  ReportService,
  recoverAfterFirstToken,
  createEventRelay,
  type EventRelay,
} from './payments/index.js';
import { createPeripherals, type PeripheralSet } from './devices/index.js';
import type { DemoPlatform, SimulatedPeripherals } from './sim/index.js';
import { createOffline, type Offline } from './offline/index.js';
import {
  IDEMPOTENCY_RETENTION_MS,
  offlineApiSource,
  type PlatformSignInSource,
  type DeviceStatusSource,
  type DeviceStatusView,
  type HealthSource,
  type MetricsSource,
} from './ui/index.js';
import { buildLocalApi, type LocalApi } from './agent/local-api.js';

export interface AgentOptions {
  config: Config;
  log: Logger;
  /** config/environments.json by default. */
  environmentsFile?: string;
  /** The one Clock every component gets (docs/architecture.md, "Time"); systemClock() by default. */
  clock?: Clock;
  /** Where NOTIFY_SOCKET is read (readiness to systemd); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningAgent {
  /** Counter page and local API, e.g. http://127.0.0.1:8080. */
  url: string;
  /** The per-install local API token (tests and the CLI use it; never logged). */
  localToken: string;
  /** The store-network listener for paired registers, when api.lan.enabled (docs/registers.md). */
  lan?: { url: string; fingerprint: string };
  endpoints: PlatformEndpoints;
  identity: DeviceIdentity;
  bus: EventBus;
  auth: AuthService;
  platformClient: PlatformClient;
  /** The one view of the platform's availability (docs/counter-page.md, "Local API and counter page"). */
  platformWatch: PlatformWatch;
  payments: PaymentService;
  offline: Offline;
  peripherals: PeripheralSet;
  /** Only with the embedded demo platform (environment local). */
  demoPlatform?: DemoPlatform;
  /** Only with simulated peripherals (devices.simulate). */
  simulated?: SimulatedPeripherals;
  /** Resolves when start-up work in the background (token, recovery) has settled. */
  settled: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The demo platform and the simulated devices, loaded only when the configuration asks for
 * them: a terminal in production (real platform, real serial ports) never loads their code
 * (docs/demo-platform.md, "Demo platform"; test/structure/production-modules.test.ts).
 */
function loadSim(): Promise<typeof import('./sim/index.js')> {
  return import('./sim/index.js');
}

/** The embedded demo platform of environment `local`, with dev certificates generated when absent. */
async function startEmbeddedPlatform(
  config: Config,
  log: Logger,
  clock: Clock,
): Promise<{ platform: DemoPlatform; endpoints: PlatformEndpoints }> {
  const { DEMO_LEDGER_FILE, demoPlatformConfig, startDemoPlatform } = await loadSim();
  const certDir = dirname(config.identity.certFile);
  const dev = devCertPaths(certDir);
  if (!existsSync(config.identity.certFile) && !existsSync(dev.caCert)) {
    generateDevCerts(certDir);
    log.info({ dir: certDir }, 'development certificates generated');
  }
  const platform = await startDemoPlatform({
    ...demoPlatformConfig(config.sim),
    tls: { certFile: dev.serverCert, keyFile: dev.serverKey, caFile: config.identity.caFile },
    log,
    clock,
    // Earlier demo sales stay refundable after a restart (docs/demo-platform.md, "Demo platform", ledger file).
    ...(config.sim.persistLedger ? { stateFile: join(config.dataDir, DEMO_LEDGER_FILE) } : {}),
  });
  // The demo platform writes server times in its profile's zone; a terminal reading them in another ends QR codes at the wrong time
  // (docs/platform-contract.md, "Tolerance of answers", dates and time zone).
  const zone = platform.context.profile.timeZone;
  if (config.platform.timeZone !== undefined && zone !== config.platform.timeZone) {
    log.warn(
      { simTimeZone: zone, platformTimeZone: config.platform.timeZone },
      `the demo platform writes server times in ${zone}: set platform.timeZone to ${zone}`,
    );
  }
  return {
    platform,
    endpoints: { baseUrl: platform.urls.api, authUrl: platform.urls.api, deviceAuthUrl: platform.urls.mtls },
  };
}

/**
 * Simulated peripherals present an approved card by themselves: against a real platform they
 * would charge made-up cards. Outside environment local they are refused before anything starts
 * (docs/operations.md, "Configuration keys that matter in production"). The schema's default is
 * `true` for the demo, so a terminal's file must say `false`.
 */
function refuseSimulatedDevices(config: Config): void {
  if (config.environment === 'local' || !config.devices.simulate) return;
  throw new AgentError(
    ErrorCodes.CONFIG_INVALID,
    `config: devices.simulate: simulated peripherals run only in environment local, not ${config.environment}: set devices.simulate to false and configure the ports (devices.reader.path or devices.reader.usb)`,
    { details: { key: 'devices.simulate', environment: config.environment } },
  );
}

/**
 * The composition root (docs/architecture.md, "Composition root"): builds every component from the
 * configuration, in dependency order, and stops them in reverse. Start-up does not wait
 * for the platform: the token, the recovery of rows left in flight and the relay's
 * resumption run in the background, so the counter page is up even when the platform is not.
 */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const { config } = opts;
  const log = opts.log;
  const clock = opts.clock ?? systemClock();
  const bus = new EventBus((err) => log.warn({ err }, 'event listener failed'), clock);
  const stops: Array<() => Promise<void> | void> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        log.warn({ err }, 'component did not stop cleanly');
      }
    }
  };

  try {
    let demoPlatform: DemoPlatform | undefined;
    let endpoints: PlatformEndpoints;
    /** The zone of the platform's server times (no default: docs/platform-contract.md, "Tolerance of answers", dates and time zone). */
    let platformTimeZone: string;
    if (config.environment === 'local' && config.sim.embedded) {
      const embedded = await startEmbeddedPlatform(config, log, clock);
      demoPlatform = embedded.platform;
      endpoints = embedded.endpoints;
      stops.push(() => embedded.platform.stop());
      // The embedded demo platform names the zone it writes in (its profile's).
      platformTimeZone = resolvePlatformTimeZone(
        config,
        opts.environmentsFile,
        embedded.platform.context.profile.timeZone,
      );
    } else {
      // https:// only, no credentials in a URL (docs/operations.md, "Configuration keys that matter in production").
      endpoints = resolveSecureEndpoints(config, opts.environmentsFile);
      refuseSimulatedDevices(config);
      platformTimeZone = resolvePlatformTimeZone(config, opts.environmentsFile);
    }

    const identity = loadIdentity({
      certFile: config.identity.certFile,
      keyFile: config.identity.keyFile,
      caFile: config.identity.caFile,
      enforceKeyMode: config.identity.enforceKeyMode,
    });
    // From here every line names the terminal (docs/operations.md, "Logs"); components made below inherit it.
    log.setBindings({ serialNumber: identity.serialNumber });
    const certStatus = certificateStatus(identity, new Date(clock.wall()), config.identity.expiryWarningDays);
    bus.publish('certificate.status', {
      state: certStatus.state,
      notAfter: identity.notAfter.toISOString(),
      daysLeft: certStatus.daysLeft,
      reason: certStatus.message,
    });
    if (certStatus.state !== 'valid') log.warn({ daysLeft: certStatus.daysLeft }, certStatus.message);

    const timeouts = {
      connectTimeoutMs: config.platform.connectTimeoutMs,
      headersTimeoutMs: config.platform.headersTimeoutMs,
      bodyTimeoutMs: config.platform.bodyTimeoutMs,
    };
    const dispatchers = new HostDispatchers(() => createMtlsDispatcher(identity, timeouts));
    stops.push(() => dispatchers.close());

    const auth = new AuthService({
      identity,
      endpoints,
      dispatchers,
      settings: {
        mode: config.auth.mode,
        merchantId: config.auth.merchantId,
        username: config.auth.username,
        password: config.auth.password,
        poweredClientId: config.auth.poweredClientId,
        refreshRatio: config.auth.refreshRatio,
        leewaySeconds: config.auth.leewaySeconds,
        backoffBaseMs: config.auth.backoffBaseMs,
        backoffCapMs: config.auth.backoffCapMs,
        customToken: {
          realm: config.auth.customToken.realm,
          clientId: config.auth.customToken.clientId,
          clientSecret: config.auth.customToken.clientSecret,
          deviceModel: config.auth.customToken.deviceModel,
          deviceId: config.auth.customToken.deviceId,
          method: config.auth.customToken.method,
          signInMs: config.auth.customToken.signInMinutes * 60_000,
        },
      },
      log,
      bus,
      clock,
    });
    stops.push(() => auth.stop());

    // The one source of truth of the platform's availability: every call reports to it (docs/counter-page.md, "Local API and counter page").
    const platformWatch = new PlatformWatch({
      bus,
      log,
      clock,
      intervalMs: config.platform.availabilityIntervalMs,
      backoff: {
        baseMs: Math.min(1_000, config.platform.availabilityBackoffCapMs),
        capMs: config.platform.availabilityBackoffCapMs,
      },
    });
    stops.push(() => platformWatch.stop());
    const platformClient = new PlatformClient({
      baseUrl: endpoints.baseUrl,
      dispatchers,
      tokens: auth,
      log,
      availabilityTimeoutMs: config.platform.availabilityTimeoutMs,
      clock,
      reach: platformWatch,
    });

    const journal = new Journal({ dataDir: config.dataDir, clock, log });
    stops.push(() => journal.close());

    let simulated: SimulatedPeripherals | undefined;
    if (config.devices.simulate) {
      const { startSimulatedPeripherals } = await loadSim();
      simulated = await startSimulatedPeripherals({ config: config.devices, log, clock });
      const sim = simulated;
      stops.push(() => sim.stop());
    }
    const peripherals = createPeripherals({
      config: config.devices,
      bus,
      log,
      clock,
      ...(simulated ? { binding: simulated.binding } : {}),
    });
    stops.push(() => peripherals.stop());
    await peripherals.start();

    // Every journal row is written through this one writer (docs/journal.md, "One write path"),
    // shared by payments and the offline queue's reports.
    const rows = new JournalWriter(journal, bus);
    // The queue's tables live in the journal's file; offline changes journal rows only through payments' verbs (docs/offline.md, "Offline and payments").
    const offline: Offline = createOffline({
      db: journal.db,
      reports: offlineSaleReports(rows, log.child({ module: 'offline' })),
      platform: platformClient,
      bus,
      log,
      config: config.offline,
      lookupGraceMs: config.payments.lookupGraceMs,
      clock,
      reach: platformWatch,
    });
    stops.push(() => offline.uploader.stop());
    // Final sales past journal.retentionDays leave the journal in small batches, off the sale path (docs/journal.md, "Retention").
    const pruner = new JournalPruner(journal, {
      retentionDays: config.journal.retentionDays,
      clock,
      partners: [offline.retention],
      log,
    });
    pruner.start();
    stops.push(() => pruner.stop());

    const payments = new PaymentService({
      journal,
      rows,
      platform: platformClient,
      peripherals,
      bus,
      log,
      config,
      offline: offline.hook,
      clock,
      // An unknown merchant is refused before the reader (docs/architecture.md, "Invariants"): one
      // the terminal's list names passes without a call; any other is asked of the auth service,
      // which learns the platform ids of merchants not seen yet and refuses one it does not serve.
      merchantCheck: (merchantId) => auth.checkMerchant(merchantId),
      // payments.captureMode may name a merchant by any of its names (docs/operations.md).
      merchantNames: (merchantId) => auth.merchantNames(merchantId),
    });
    stops.push(() => payments.stop());

    const relay: EventRelay = createEventRelay({
      store: payments,
      fetchStatus: (id, merchantId) => platformClient.status(id, merchantId !== undefined ? { merchantId } : undefined),
      log,
      clock,
      timeZone: platformTimeZone,
      platformNow: () => auth.platformNow(),
    });
    stops.push(() => relay.stop());

    // Back online: the uploader sends what waited at once instead of at the end of its backoff.
    bus.on('platform.status', (e) => {
      if (e.data.online) offline.uploader.wake();
    });
    const health: HealthSource = {
      tokenHeld: () => auth.status().hasToken,
      platformReachable: () => platformWatch.online,
      platform: () => platformWatch.view(),
      offlineAllowed: () => {
        const levels = offline.api.levels();
        return levels.enabled && levels.count < levels.maxCount;
      },
      readerConnected: () => peripherals.reader.connected,
      storage: () => payments.storage(),
    };
    // Devices announce their state before the local API listens: it reads the supervisors instead.
    const devices: DeviceStatusSource = {
      devices: () => {
        const { reader, display, scanner } = peripherals.status();
        return [reader, display, scanner].map((d): DeviceStatusView => ({
          device: d.device,
          state: !d.enabled
            ? 'disabled'
            : d.state === 'connected' || d.state === 'reconnecting'
              ? d.state
              : 'disconnected',
          ...(d.message !== undefined ? { reason: d.message } : {}),
          ...(d.info?.model !== undefined ? { model: d.info.model } : {}),
          ...(d.info?.firmware !== undefined ? { firmware: d.info.firmware } : {}),
        }));
      },
    };
    // Figures for GET /metrics the local API cannot read itself (docs/operations.md, "Metrics").
    const metrics: MetricsSource = {
      certificateNotAfter: () => identity.notAfter,
      info: { version: packageVersion(), serialNumber: identity.serialNumber, environment: config.environment },
      tokens: () =>
        auth
          .status()
          .tokens.filter((t) => t.hasToken)
          .map((t) => ({
            merchant: t.merchantId ?? t.clientId,
            ...(t.expiresAt !== undefined ? { expiresAt: t.expiresAt } : {}),
          })),
    };
    // Staff sign-in for the counter page: the password grant, the local verifier as fallback (docs/counter-page.md, "Local API and counter page").
    const staff = new StaffSignIn({
      endpoints,
      dispatchers,
      clientId: config.auth.poweredClientId,
      thumbprint: identity.thumbprint,
      leewaySeconds: config.auth.leewaySeconds,
      dataDir: config.dataDir,
      offlineDays: config.auth.offlineSignInDays,
      clock,
      log,
    });
    // Idempotency-Keys live in the journal's file, so a repeat after a restart still finds its sale (docs/local-api.md, "Idempotency").
    const idempotency = new IdempotencyKeys(journal.db, clock, IDEMPOTENCY_RETENTION_MS);
    const auditLog = new AuditLog(journal.db, clock);
    // Receipts and end of day read the journal only, written for their reader: receipts.*, the clerk's claims, api.* (docs/receipts.md, "Language and time zone").
    const reports = new ReportService({
      journal,
      sources: { merchants: () => auth.merchants(), terminalId: () => auth.status().serialNumber },
      ...(config.api.timeZone !== undefined ? { timeZone: config.api.timeZone } : {}),
      locale: config.api.locale,
      store: {
        ...(config.receipts.locale !== undefined ? { locale: config.receipts.locale } : {}),
        ...(config.receipts.timeZone !== undefined ? { timeZone: config.receipts.timeZone } : {}),
      },
      clock,
    });
    // auth.mode custom_token (demo only): the merchant signs in with the platform on the counter page (docs/platform-contract.md, "Tokens").
    const merchantSignIn = auth.platformSignIn;
    const platformSignIn: PlatformSignInSource | undefined =
      merchantSignIn === undefined
        ? undefined
        : {
            begin: (redirectUri) => merchantSignIn.begin(redirectUri),
            complete: async (callback) => ({ ...(await merchantSignIn.complete(callback)), offline: false }),
          };
    const localApi: LocalApi = buildLocalApi({
      config,
      payments,
      bus,
      log,
      health,
      offline: offlineApiSource(offline),
      merchants: auth,
      devices,
      clock,
      metrics,
      staff,
      reports,
      idempotency,
      // Audit rows in the journal's file: a log level that silences the logs is on record there (docs/operations.md, "Log level").
      audit: (entry) => auditLog.record(entry),
      ...(platformSignIn !== undefined ? { platformSignIn } : {}),
    });
    const { url, token: localToken, lan } = await localApi.start();
    stops.push(() => localApi.stop());

    // Background start-up: the first token, then rows a crash left in flight, then availability.
    const recover = async (): Promise<void> => {
      try {
        const recovered = await payments.recover();
        if (recovered.resolved + recovered.reversing + recovered.failed > 0)
          log.info(recovered, 'journal rows left in flight resolved');
      } catch (err) {
        log.error({ err }, 'recovery of journal rows left in flight failed');
      }
    };
    const recovery = recoverAfterFirstToken({
      bus,
      firstToken: async () => {
        await auth.start();
        // Idle checks from here on, and one now so that `settled` knows the platform's state.
        platformWatch.start(platformClient);
        await platformWatch.checkNow();
      },
      onFirstTokenFailed: (err) => {
        // Stopped while waiting (e.g. for the merchant's sign-in in custom_token mode): nothing failed.
        if (isAgentError(err, ErrorCodes.AUTH_STOPPED)) return;
        log.error(
          { code: isAgentError(err) ? err.code : undefined },
          `device authentication failed: ${describeError(err)}`,
        );
        platformWatch.start(platformClient);
      },
      recover,
    });
    stops.push(recovery.stop);
    const settled = recovery.done;
    // The uploader checks availability itself (with backoff while offline) and sends what is queued.
    offline.uploader.start();
    relay.start();

    bus.publish('agent.status', { state: 'ready', message: url });
    log.info({ url, environment: config.environment }, `counter page: ${url}/`);
    // Ready for systemd once the local API listens; the platform may still be unreachable
    // (start-up does not wait for it), which /readyz and the metrics report.
    await notifySystemdReady(log, { ...(opts.env !== undefined ? { env: opts.env } : {}), status: `serving ${url}` });

    return {
      url,
      localToken,
      ...(lan !== undefined ? { lan } : {}),
      endpoints,
      identity,
      bus,
      auth,
      platformClient,
      platformWatch,
      payments,
      offline,
      peripherals,
      ...(demoPlatform ? { demoPlatform } : {}),
      ...(simulated ? { simulated } : {}),
      settled,
      async stop() {
        bus.publish('agent.status', { state: 'stopping' });
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
