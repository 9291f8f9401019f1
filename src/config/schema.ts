import { z } from 'zod';
import { isKnownTimeZone } from '../core/index.js';
import { platformUrl } from './transport-check.js';

/**
 * The one configuration schema. Every key has a type, a default and a one-line
 * description; environment overrides (TERMINAL_AGENT_*) are derived from the key path.
 * Relative paths are resolved against the working directory at load time.
 */

const port = z.number().int().min(0).max(65535);
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'expected an ISO 4217 code such as EUR');
const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** payments.captureMode of one merchant (docs/payments.md, "Capture, cancel, refund"). */
const captureModeName = z.enum(['immediate', 'deferred']);
/** An IANA time zone name the runtime knows (docs/platform-contract.md, "Tolerance of answers", dates and time zone). */
/** A BCP 47 language tag the runtime accepts (en-GB, de-DE). */
const languageTag = z.string().refine((tag) => {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}, 'expected a language tag such as en-GB or de-DE');
const timeZone = z
  .string()
  .refine(isKnownTimeZone, { message: 'expected an IANA time zone name such as UTC or Asia/Singapore' });

const usbMatch = z.strictObject({
  vendorId: z
    .string()
    .regex(/^[0-9a-fA-F]{4}$/, 'expected 4 hex digits')
    .describe('USB vendor id, e.g. 0483'),
  productId: z
    .string()
    .regex(/^[0-9a-fA-F]{4}$/, 'expected 4 hex digits')
    .describe('USB product id'),
  serialNumber: z.string().optional().describe('USB serial number, when several identical devices are attached'),
});

const serialPortConfig = (defaultPath: string) =>
  z
    .strictObject({
      enabled: z.boolean().default(true).describe('whether the agent drives this device'),
      path: z.string().min(1).default(defaultPath).describe('serial device path, e.g. /dev/ttyACM0'),
      baudRate: z.number().int().positive().default(115200).describe('line speed (8N1, no flow control)'),
      usb: usbMatch.optional().describe('find the port by USB ids instead of by path'),
      requestTimeoutMs: z.number().int().positive().default(5_000).describe('answer timeout of a device request'),
    })
    .prefault({});

export const environmentNames = ['local', 'demo', 'na', 'in', 'eu'] as const;
export type EnvironmentName = (typeof environmentNames)[number];

export const configSchema = z.strictObject({
  environment: z
    .enum(environmentNames)
    .default('local')
    .describe('platform environment; local = the embedded demo platform'),
  dataDir: z.string().min(1).default('data').describe('journal, offline queue and local API token live here'),
  identity: z
    .strictObject({
      certFile: z.string().min(1).default('certs/device.crt').describe('device certificate (PEM)'),
      keyFile: z.string().min(1).default('certs/device.key').describe('device private key (PEM, mode 0600)'),
      caFile: z.string().min(1).default('certs/platform-ca.crt').describe('platform CA, the only trust root (PEM)'),
      expiryWarningDays: z
        .array(z.number().int().positive())
        .default([30, 7, 1])
        .describe('warn when the certificate expires within these many days'),
      enforceKeyMode: z.boolean().default(true).describe('refuse a key file readable by group or others'),
    })
    .prefault({}),
  platform: z
    .strictObject({
      baseUrl: platformUrl.optional().describe('main API host; default from config/environments.json'),
      authUrl: platformUrl.optional().describe('security host; default from config/environments.json'),
      deviceAuthUrl: platformUrl
        .optional()
        .describe('device auth host with its mTLS port; default from config/environments.json'),
      userDomain: z.string().min(1).default('demo-merchants').describe('user domain (realm) of the organization'),
      connectTimeoutMs: z.number().int().positive().default(5_000).describe('TCP+TLS connect timeout'),
      headersTimeoutMs: z.number().int().positive().default(15_000).describe('time to response headers'),
      bodyTimeoutMs: z.number().int().positive().default(15_000).describe('idle time while reading a body'),
      availabilityTimeoutMs: z.number().int().positive().default(2_000).describe('isAvailable budget'),
      availabilityIntervalMs: z
        .number()
        .int()
        .positive()
        .default(5_000)
        .describe('while the platform is online and no call answered for this long, ask isAvailable'),
      availabilityBackoffCapMs: z
        .number()
        .int()
        .positive()
        .default(30_000)
        .describe('while the platform is offline, isAvailable is asked with backoff from 1 s up to this'),
      timeZone: timeZone
        .optional()
        .describe(
          "the platform's time zone (IANA name, e.g. Asia/Singapore): server times without an offset are read in it; no default: named here or by the environment's entry in config/environments.json (the embedded demo platform names its own), else start-up stops",
        ),
    })
    .prefault({}),
  auth: z
    .strictObject({
      mode: z
        .enum(['client_credentials', 'password', 'custom_token'])
        .default('client_credentials')
        .describe(
          "how the terminal obtains its device token; custom_token: demo only, a terminal without a registered device certificate, after the merchant's sign-in on the counter page",
        ),
      merchantId: z
        .string()
        .optional()
        .describe('merchant (clientId or merchant name) to use when the terminal serves several'),
      username: z.string().optional().describe('staff user for the password grant'),
      password: z.string().optional().describe('staff password for the password grant (secret)'),
      poweredClientId: z
        .string()
        .min(1)
        .default('powered-app')
        .describe("the platform's designated application for the password grant"),
      refreshRatio: z.number().gt(0).lt(1).default(0.8).describe('refresh tokens at this fraction of expires_in'),
      leewaySeconds: z.number().int().min(0).default(30).describe('clock leeway when checking exp/nbf'),
      backoffBaseMs: z.number().int().positive().default(1_000).describe('first retry delay'),
      backoffCapMs: z.number().int().positive().default(300_000).describe('longest retry delay'),
      customToken: z
        .strictObject({
          realm: z
            .string()
            .min(1)
            .default('demo')
            .describe(
              'the realm whose authorization flow signs the merchant in and whose custom-token call issues the device token',
            ),
          clientId: z
            .string()
            .min(1)
            .default('portal-app')
            .describe(
              "the realm's application the merchant signs in to (its redirect URIs must include http://127.0.0.1/platform-sign-in/callback)",
            ),
          clientSecret: z.string().min(1).optional().describe("that application's secret, when it has one (secret)"),
          deviceModel: z
            .string()
            .min(1)
            .default('terminal-agent')
            .describe('device_model sent to the custom-token call'),
          deviceId: z
            .string()
            .min(1)
            .optional()
            .describe("device_id sent to the custom-token call; default the device certificate's serial number"),
          method: z.enum(['api', 'device_flow']).default('api').describe('method sent to the custom-token call'),
          signInMinutes: z
            .number()
            .positive()
            .max(60)
            .default(10)
            .describe('how long a sign-in started on the counter page may take before its state expires'),
        })
        .prefault({})
        .describe('auth.mode custom_token (demo only): the realm sign-in and the custom-token call'),
      offlineSignInDays: z
        .number()
        .min(0)
        .default(7)
        .describe(
          'staff who signed in online within this many days may sign in against the local verifier while the platform is unreachable; 0 = never',
        ),
    })
    .prefault({}),
  payments: z
    .strictObject({
      defaultCurrency: currencyCode.default('EUR').describe('currency when none is typed'),
      currencies: z
        .array(currencyCode)
        .default([])
        .describe(
          'currencies the counter page offers, in this order (the default currency is always offered); empty = the default currency only',
        ),
      captureMode: z
        .union([
          captureModeName,
          z.strictObject({
            default: captureModeName.default('deferred').describe('the mode of a merchant the map does not name'),
            merchants: z
              .record(z.string().min(1), captureModeName)
              .default({})
              .describe('mode per merchant: clientId, merchant name or platform merchant id'),
          }),
        ])
        .default('deferred')
        .describe(
          'whether the terminal captures an authorization the platform shows not captured: deferred (default: the platform\'s answer decides; a capture later from the counter or capture-all) or immediate (at once); one mode for every merchant, or {"default": ..., "merchants": {"<merchant>": ...}}',
        ),
      channel: z.string().default('instore').describe('channel sent with every payment call'),
      reversalRetryCapMs: z
        .number()
        .int()
        .positive()
        .default(300_000)
        .describe('longest wait between reversal attempts in the background'),
      reversalWaitingRetryCapMs: z
        .number()
        .int()
        .positive()
        .default(5_000)
        .describe(
          'longest wait between reversal attempts while the clerk waits (the first payments.reversalWaitingMs)',
        ),
      reversalWaitingMs: z
        .number()
        .int()
        .min(0)
        .default(120_000)
        .describe('how long after a reversal starts the clerk is taken to wait at the counter'),
      lookupGraceMs: z
        .number()
        .int()
        .min(0)
        .default(20_000)
        .describe(
          'after an unknown outcome, how long "not found" is looked up again (a slow request may still land) before it counts as not done',
        ),
      lateLandingWatchMs: z
        .number()
        .int()
        .min(0)
        .default(86_400_000)
        .describe(
          'after a card sale was counted as not done, how long (from the sale) the agent keeps looking for it at the platform and reverses it if it lands late; a wallet sale is watched until its cancel window ends (0 = off)',
        ),
      busyRetryMaxMs: z
        .number()
        .int()
        .min(0)
        .default(10_000)
        .describe(
          'a payment write answered 429 or 503 with Retry-After (busy, nothing processed) is sent again with the same client id while the waits add up to at most this; 0 = never',
        ),
      maxSaleAmount: z
        .record(
          z.string().regex(/^([A-Z]{3}|default)$/, 'expected an ISO 4217 code such as EUR, or default'),
          z.number().positive(),
        )
        .default({ default: 100_000 })
        .describe(
          'largest amount of one sale, in major units, per currency; `default` for currencies not listed (e.g. {"default":100000,"JPY":10000000})',
        ),
      minFreeDiskMb: z
        .number()
        .int()
        .min(0)
        .default(64)
        .describe('no new sale starts while the data directory has less free space than this (MB); 0 = no check'),
    })
    .prefault({}),
  receipts: z
    .strictObject({
      locale: languageTag
        .optional()
        .describe(
          "the language and date format of every receipt and end of day (en and de are translated; others print English); default: the signed-in clerk's locale claim, else api.locale",
        ),
      timeZone: timeZone
        .optional()
        .describe(
          "the time zone (IANA name) of every receipt's time and the end of day's day; default: the signed-in clerk's zoneinfo claim, else api.timeZone, else the terminal's own",
        ),
    })
    .prefault({}),
  journal: z
    .strictObject({
      retentionDays: z
        .number()
        .int()
        .min(0)
        .refine((d) => d === 0 || d >= 31, 'expected 0 (keep everything) or at least 31 days')
        .default(400)
        .describe(
          'final transactions (every operation on the sale final, none needing attention, an offline sale uploaded) whose last change is older than this many days are removed from the journal in small batches, with their events and queue rows; 0 = keep everything (docs/journal.md, "Retention")',
        ),
    })
    .prefault({}),
  offline: z
    .strictObject({
      enabled: z.boolean().default(true).describe('take offline card sales when the platform is unreachable'),
      floorLimits: z
        .record(currencyCode, minorUnits)
        .default({ EUR: 25_000, USD: 25_000, GBP: 25_000 })
        .describe('per-sale limit per currency, minor units'),
      maxCount: z.number().int().min(0).default(500).describe('most offline sales stored'),
      maxTotal: z
        .record(currencyCode, minorUnits)
        .default({ EUR: 500_000, USD: 500_000, GBP: 500_000 })
        .describe('most stored per currency, minor units'),
      maxAgeHours: z.number().positive().default(24).describe('an offline sale must be uploaded within this age'),
      warnBeforeHours: z.number().positive().default(2).describe('warn this long before maxAgeHours runs out'),
      uploadConcurrency: z.number().int().min(1).max(16).default(1).describe('offline uploads in flight at once'),
      maxAttempts: z.number().int().min(1).default(10).describe('failed uploads before an item needs attention'),
    })
    .prefault({}),
  devices: z
    .strictObject({
      simulate: z.boolean().default(true).describe('run simulated peripherals (demo) instead of real ports'),
      reader: serialPortConfig('/dev/ttyACM0').describe('card reader'),
      display: serialPortConfig('/dev/ttyACM1').describe('customer display'),
      scanner: serialPortConfig('/dev/ttyACM2').describe('barcode scanner'),
      scanTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(60_000)
        .describe('how long a merchant-scan sale waits for a scan'),
      cardTimeoutMs: z.number().int().positive().default(90_000).describe('how long a card sale waits for the reader'),
      reconnectBaseMs: z
        .number()
        .int()
        .positive()
        .default(250)
        .describe('first delay before reopening a lost serial port (full jitter)'),
      reconnectCapMs: z
        .number()
        .int()
        .positive()
        .default(10_000)
        .describe('longest delay between attempts to reopen a serial port'),
    })
    .prefault({}),
  api: z
    .strictObject({
      host: z
        .enum(['127.0.0.1', '::1', 'localhost'])
        .default('127.0.0.1')
        .describe('loopback address of the local API (never another)'),
      port: port.default(8080).describe('local API and counter page port; 0 = any free port'),
      openBrowser: z.boolean().default(false).describe('open the counter page in a browser at start'),
      locale: languageTag
        .default('en-GB')
        .describe(
          "the counter page's language and number and date formats when the clerk's token names no locale (en and de are translated; others fall back to English words)",
        ),
      timeZone: timeZone
        .optional()
        .describe(
          "the zone the counter page shows times in when the clerk's token names none (IANA name); default: the terminal's own",
        ),
      outcomeSeconds: z
        .number()
        .int()
        .min(0)
        .default(60)
        .describe(
          'the counter page goes back to a clean new-sale form this long after a final outcome the clerk need not act on (approved, declined, ...); 0 = only on "New sale"',
        ),
      sessionIdleMinutes: z
        .number()
        .positive()
        .default(15)
        .describe('a staff session on the counter page ends after this long without a request'),
      sessionMaxHours: z
        .number()
        .positive()
        .default(12)
        .describe('a staff session ends this long after sign-in, however busy'),
      permissions: z
        .strictObject({
          cancel: z.string().min(1).default('payment:cancel').describe('the token permission a clerk needs to cancel'),
          refund: z
            .string()
            .min(1)
            .default('payment:refund')
            .describe('the token permission a clerk needs to refund (refund by web too)'),
          captureAll: z
            .string()
            .min(1)
            .default('payment:capture')
            .describe('the token permission a clerk needs to capture all'),
          // A sale of this terminal given back by web needs no supervisor approval code: its own permission, so it is no way around one.
          refundByWeb: z
            .string()
            .min(1)
            .default('payment:refund-by-web')
            .describe(
              'the token permission a clerk needs, besides cancel and refund, to cancel or refund a sale made at this terminal by web',
            ),
          // A paired register may refund its own sales: pairing one needs what refunding needs.
          registers: z
            .string()
            .min(1)
            .default('payment:refund')
            .describe('the token permission a clerk needs to pair and revoke cash registers'),
          // Silencing the logs hides what happens on the terminal: not a clerk's call.
          logLevel: z
            .string()
            .min(1)
            .default('terminal:log-level')
            .describe(
              'the token permission a clerk needs to change the log level from a staff session (the per-install token may always)',
            ),
        })
        .prefault({})
        .describe("permissions (the staff token's permissions claim) the counter page's operations need"),
      lan: z
        .strictObject({
          enabled: z
            .boolean()
            .default(false)
            .describe('serve paired cash registers on the store network (TLS with the terminal certificate)'),
          host: z.string().min(1).default('0.0.0.0').describe('address the store-network listener binds'),
          port: port.default(8444).describe('store-network listener port; 0 = any free port'),
          hostNames: z
            .array(z.string().min(1))
            .default([])
            .describe(
              "names and addresses registers use to reach the terminal (written into the terminal's certificate)",
            ),
          pairingCodeSeconds: z.number().int().min(30).max(900).default(120).describe('how long a pairing code lasts'),
          handshakeSeconds: z
            .number()
            .int()
            .min(1)
            .max(60)
            .default(5)
            .describe('a connection that has not finished TLS this long after it opened is closed'),
          maxConnections: z
            .number()
            .int()
            .min(1)
            .default(64)
            .describe('open store-network connections in all; more are closed at once'),
          maxConnectionsPerPeer: z
            .number()
            .int()
            .min(1)
            .default(16)
            .describe('open store-network connections from one address; more are closed at once'),
        })
        .prefault({})
        .describe('cash registers on the store network (docs/registers.md); off by default'),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z
        .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info')
        .describe('log level'),
      pretty: z.boolean().optional().describe('human-readable logs; default when stdout is a terminal'),
    })
    .prefault({}),
  sim: z
    .strictObject({
      embedded: z.boolean().default(true).describe('start the demo platform in-process (environment local only)'),
      host: z.string().default('127.0.0.1').describe('address the demo platform listens on'),
      apiPort: port.default(8443).describe('demo platform HTTPS port (auth + payment API); 0 = any'),
      mtlsPort: port.default(9021).describe('demo platform device-token mTLS port; 0 = any'),
      seedFile: z
        .string()
        .default('config/demo-seed.json')
        .describe('merchants, stores, terminals, users of the demo platform'),
      accessTokenSeconds: z.number().int().positive().default(300).describe('access token lifetime'),
      refreshTokenSeconds: z.number().int().positive().default(1_800).describe('refresh token lifetime'),
      walletPayDelayMs: z
        .number()
        .int()
        .min(0)
        .default(8_000)
        .describe('after this delay a consumer-scan wallet payment is paid (0 = only by control call)'),
      qrExpirySeconds: z.number().int().positive().default(300).describe('consumer-scan QR lifetime'),
      profile: z
        .enum(['standard', 'strict'])
        .default('standard')
        .describe('how the demo platform answers: standard, or strict from the extremes the platform contract allows'),
      persistLedger: z
        .boolean()
        .default(true)
        .describe(
          'the embedded demo platform keeps its ledger (sales, refunds, captures, web orders) in <dataDir>/demo-platform-ledger.json across restarts',
        ),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type SerialPortConfig = Config['devices']['reader'];

/** Keys whose values are secrets: shown as [redacted] by `config show`. */
export const secretConfigPaths: readonly string[] = ['auth.password', 'auth.customToken.clientSecret'];
