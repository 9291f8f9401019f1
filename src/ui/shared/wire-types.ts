/**
 * The local API's requests and answers as they travel (JSON), declared once for the three
 * parties: the server (src/ui/local/routes/), the CLI's client (src/ui/client/) and the counter
 * page (src/ui/page/). See docs/counter-page.md, "Local API and counter page".
 *
 * Types only, and no imports: the page's own build (src/ui/page/tsconfig.json, browser
 * libraries, no Node types) compiles this file too, and the browser never loads it.
 * Amounts are integer minor units of the currency (ISO 4217); `...Text` fields are the
 * same amounts formatted for people. No answer ever carries card data beyond a masked PAN,
 * nor a secret or token.
 */

// ---------- transactions ----------

export type ApiOperationKind = 'sale' | 'capture' | 'cancel' | 'refund';
export type ApiSaleMethod = 'card' | 'manual' | 'moto' | 'walletA' | 'walletB';
export type ApiWalletScenario = 'ConsumerScan' | 'MerchantScan';
/** Which platform call carries a wallet merchant scan: process, or the terminal QR call. */
export type ApiSaleVia = 'process' | 'qrTerminal';
/** Journal states (src/payments/api.ts TransactionState). */
export type ApiTransactionState =
  | 'created'
  | 'awaiting_customer'
  | 'in_flight'
  | 'pending'
  | 'approved'
  | 'declined'
  | 'failed'
  | 'cancelled'
  | 'reversing'
  | 'reversed'
  | 'offline_stored'
  | 'needs_attention';

/** A journal row as the local API answers it: the engine's view plus the formatted amounts. */
export interface ApiTransaction {
  clientTransactionId: string;
  serverTransactionId?: string;
  kind: ApiOperationKind;
  method?: ApiSaleMethod;
  scenario?: ApiWalletScenario;
  merchantId?: string;
  amount: number;
  currency: string;
  amountText: string;
  state: ApiTransactionState;
  /** The platform's transactionStatus as last seen (Accepted, Captured, Initialized, cancelled, ...). */
  platformStatus?: string;
  /** The sale this operation acts on (cancel, refund, capture). */
  relatedClientTransactionId?: string;
  maskedPan?: string;
  scheme?: string;
  entryMode?: string;
  offline: boolean;
  /** `web`: a web shop's order journaled for its refund by web, not a sale of this terminal (left out of its totals). */
  origin?: 'web';
  /** Why it was declined / failed / needs attention, in words a person can act on. */
  message?: string;
  /** Who made the row: the signed-in clerk's username, `cli` or `local-api` for token callers, `agent` for the agent's own rows. */
  operator?: string;
  /** The X-Request-Id of the request that made the row (the caller's, or the one its answer carried); absent for the agent's own rows. */
  requestId?: string;
  /** An operation's row (cancel, refund, capture): how many times it was sent to the platform; a reversal counts its retries here. */
  attempts?: number;
  /** The wallet QR to show the customer (the page draws it itself; no embedded image). */
  qr?: { codeValue: string; expireTime?: string };
  capturedAmount: number;
  refundedAmount: number;
  cancelledAmount: number;
  capturedAmountText: string;
  refundedAmountText: string;
  cancelledAmountText: string;
  createdAt: string;
  updatedAt: string;
  /** Platform events seen, in order: on single-transaction answers only; lists carry the count. */
  events?: Array<Record<string, unknown>>;
  eventCount: number;
  /** The caller's own reference given with the sale (docs/local-api.md, "Caller reference"). */
  reference?: string;
  /** The sale's outcome is unknown and being asked of the platform: do not repeat it, do not hand over the goods yet. */
  outcomeBeingChecked?: true;
}

/** Why an operation is not allowed (src/payments/api.ts OPERATION_REASON_CODES; docs/local-api.md, "Allowed operations"). */
export type ApiOperationReasonCode =
  | 'NOT_A_SALE'
  | 'NOT_UPLOADED'
  | 'NOT_APPROVED'
  | 'CAPTURED_REFUND_INSTEAD'
  | 'CANCEL_WINDOW_ENDED'
  | 'NOTHING_LEFT_TO_CANCEL'
  | 'NOT_CAPTURED_CANCEL_INSTEAD'
  | 'REFUND_WINDOW_ENDED'
  | 'NOTHING_LEFT_TO_REFUND'
  | 'NOT_A_CARD_SALE'
  | 'ALREADY_CAPTURED'
  | 'CAPTURE_UNDER_WAY'
  | 'NOTHING_LEFT_TO_CAPTURE'
  | 'PLATFORM_NOT_ALLOWED';

/** Why a cancel, refund or capture sent was refused (src/payments/api.ts REFUSAL_REASON_CODES): the codes above, or what only the attempt learns. */
export type ApiRefusalReasonCode =
  ApiOperationReasonCode | 'APPROVAL_CODE_REQUIRED' | 'APPROVAL_CODE_INCORRECT' | 'AMOUNT_ABOVE_LEFT';

/** Whether one operation on a sale is allowed now, and up to which amount; when not, why (a sentence in English and a stable code). */
export interface ApiOperation {
  allowed: boolean;
  maxAmount: number;
  maxAmountText: string;
  reason?: string;
  reasonCode?: ApiOperationReasonCode;
}

export interface ApiAllowedOperations {
  cancel: ApiOperation;
  refund: ApiOperation;
  capture: ApiOperation;
  currency: string;
  /** Whether the platform's allowedoperations answer was used (else local rules only). */
  fromPlatform: boolean;
}

// ---------- requests ----------

/** POST /api/v1/sales. The amount travels as text in major units ("12.34"). */
export interface ApiSaleRequest {
  method: ApiSaleMethod;
  /** Wallets only (default ConsumerScan). */
  scenario?: ApiWalletScenario;
  amount: string;
  /** Default: the configured payments.defaultCurrency. */
  currency?: string;
  /** Merchant to sell for, when the terminal serves several (default: the configured one). */
  merchantId?: string;
  moto?: { orderChannel?: string; zipCode?: string; houseNumber?: string; email?: string; phone?: string };
  /** Merchant scan: the customer's code when already known (otherwise the scanner is awaited). */
  walletId?: string;
  via?: ApiSaleVia;
  /** Terminal QR call only. */
  order?: { orderId: string; orderDescription?: string };
  /** The caller's own reference, 1 to 64 printable characters; GET /api/v1/transactions?reference= finds the sale by it. */
  reference?: string;
}

/** POST /api/v1/transactions/:id/cancel. */
export interface ApiCancelRequest {
  amount?: string;
  reason?: 'Technical' | 'Functional';
  approvalCode?: string;
}

/** POST /api/v1/transactions/:id/refund. */
export interface ApiRefundRequest {
  amount?: string;
  approvalCode?: string;
}

/** POST /api/v1/transactions/:id/refund-by-web: the platform picks cancel or refund; no approval code. */
export interface ApiRefundByWebRequest {
  amount?: string;
  /** Whose token looks up and gives back a web shop's order the journal does not hold; default the default merchant. */
  merchantId?: string;
}

/** POST /api/v1/transactions/:id/capture. */
export interface ApiCaptureRequest {
  amount?: string;
}

/** POST /api/v1/capture-all. */
export interface ApiCaptureAllRequest {
  merchantId?: string;
}

// ---------- offline queue ----------

/** Queue states (src/offline/types.ts QUEUE_STATES). */
export type ApiOfflineItemState = 'queued' | 'uploading' | 'uploaded' | 'declined_after_upload' | 'needs_attention';

/** Offline queue levels (minor units per currency) with the totals and limits also as text. */
export interface ApiOfflineLevels {
  enabled: boolean;
  count: number;
  maxCount: number;
  totals: Record<string, number>;
  maxTotal: Record<string, number>;
  floorLimits?: Record<string, number>;
  /** Creation time of the oldest queued sale (ISO 8601). */
  oldestCreatedAt?: string;
  /** Items the uploader gave up on; someone has to look at them. */
  needsAttention?: number;
  /** Items per queue state in the whole queue, not only the page answered (docs/local-api.md, "Paging"). */
  states: Record<ApiOfflineItemState, number>;
  uploading?: boolean;
  lastError?: string;
  totalsText: Record<string, string>;
  maxTotalText: Record<string, string>;
  floorLimitsText: Record<string, string>;
}

/** One offline sale: no card data, the masked PAN at most. */
export interface ApiOfflineItem {
  clientTransactionId: string;
  amount: number;
  currency: string;
  amountText: string;
  maskedPan?: string;
  state: ApiOfflineItemState;
  /** Upload tries of any outcome. */
  attempts: number;
  /** What the last try (or staff) said, e.g. "declined after upload: Insufficient funds". */
  lastMessage?: string;
  storedAt: string;
  serverTransactionId?: string;
  /** The merchant (clientId) the sale was made for, when not the default. */
  merchantId?: string;
}

/** POST /api/v1/offline/flush: what "send now" did. */
export interface ApiOfflineFlushResult {
  /** What the platform's availability check said before the uploads. */
  platform?: 'online' | 'offline';
  /** Tried in this flush. */
  attempted?: number;
  uploaded: number;
  declinedAfterUpload?: number;
  /** Refused by the platform, to be tried again. */
  rejected?: number;
  needsAttention?: number;
  /** Left for the next try (unreachable, timeout, 5xx). */
  deferred?: number;
  failed: number;
  remaining: number;
  /** Each sale tried, with what happened to it. */
  items?: Array<{
    clientTransactionId: string;
    result: 'uploaded' | 'declined_after_upload' | 'rejected' | 'needs_attention' | 'deferred';
    state: ApiOfflineItemState;
    message?: string;
  }>;
}

// ---------- merchants, devices, status ----------

/** One merchant this terminal acts for (docs/platform-contract.md, "Tokens"), never its secret. */
export interface ApiMerchant {
  merchantName: string;
  /** What a sale's `merchantId` names (the platform also accepts the name or its merchant id). */
  clientId: string;
  /** The platform's merchant id, known once a token for the merchant was seen. */
  merchantId?: string;
  /** Sales without a merchant go to this one. */
  default: boolean;
}

export type ApiDeviceName = 'reader' | 'display' | 'scanner';

export interface ApiDeviceStatus {
  device: ApiDeviceName;
  state: 'connected' | 'disconnected' | 'reconnecting' | 'disabled' | 'unknown';
  reason?: string;
  model?: string;
  firmware?: string;
}

export interface ApiReadinessCheck {
  ok: boolean;
  detail: string;
}

/** GET /readyz (200 when ready, 503 otherwise). */
export interface ApiReadiness {
  ready: boolean;
  checks: {
    token: ApiReadinessCheck;
    platform: ApiReadinessCheck;
    reader: ApiReadinessCheck;
    /** The journal takes writes: while it cannot, no sale starts (detail says why). */
    journal?: ApiReadinessCheck;
    /** Free space in the data directory at or above payments.minFreeDiskMb. */
    disk?: ApiReadinessCheck;
  };
}

/** GET /api/v1/status. */
/** The platform's availability as the agent's PlatformWatch sees it; /readyz, the page's badge and the CLI read the same. */
export interface ApiPlatformStatus {
  online: boolean;
  /** `unknown` until the first call or check after start. */
  state: 'online' | 'offline' | 'unknown';
  /** Why it is offline, in a clerk's words. */
  reason?: string;
  /** When the state last changed (ISO 8601). */
  since?: string;
}

export interface ApiAgentStatus {
  agent: {
    /** The running agent's version (its package.json): after an upgrade, the old one until restarted. */
    version: string;
    run: string;
    startedAt: string;
    uptimeSeconds: number;
    environment: string;
    defaultCurrency: string;
    merchantId: string | null;
    captureMode: string;
  };
  ready: boolean;
  checks: ApiReadiness['checks'];
  platform: ApiPlatformStatus;
  devices: ApiDeviceStatus[];
  offline: ApiOfflineLevels | null;
}

// ---------- events (GET /api/v1/events, Server-Sent Events) ----------

/** One bus event as sent with `id: <seq>` and `event: <type>`. */
export interface ApiEvent {
  /** Increasing within one agent run; the SSE event id. */
  seq: number;
  type: string;
  /** ISO 8601 time of publication. */
  at: string;
  data: Record<string, unknown>;
}

/** `event: hello`, first on every connection: a new `run` numbers its events from 1 again. */
export interface ApiEventStreamHello {
  run: string;
  lastSeq: number;
}

/** `event: resync`: the events missed are no longer buffered; reload the state. */
export interface ApiEventStreamResync {
  lastSeq: number;
  reason: string;
}

// ---------- answers ----------

/** Every refusal and failure: the code is stable, the message is for the person at the counter. */
export interface ApiErrorAnswer {
  /** `reasonCode`: a refused cancel, refund or capture, why (docs/local-api.md, "Allowed operations"). */
  /** `permission`: a refusal for a missing staff permission (API_FORBIDDEN), the permission needed (docs/local-api.md, "Errors"). */
  error: { code: string; message: string; reasonCode?: ApiRefusalReasonCode; permission?: string };
}

/** GET /healthz. */
export interface ApiHealthAnswer {
  status: 'ok';
}

/** POST /api/v1/sales (202), abort, GET one transaction, cancel, refund, refund by web, capture. */
export interface ApiTransactionAnswer {
  transaction: ApiTransaction;
}

/** GET /api/v1/transactions, POST /api/v1/capture-all. */
export interface ApiTransactionListAnswer {
  transactions: ApiTransaction[];
  /** More rows follow: ask again with `after` set to this id. */
  next?: string;
}

export interface ApiAllowedOperationsAnswer {
  allowedOperations: ApiAllowedOperations;
}

/** GET /api/v1/offline: `offline` is null when the queue does not run on this terminal. */
export interface ApiOfflineAnswer {
  offline: ApiOfflineLevels | null;
  items: ApiOfflineItem[];
  /** More items follow: ask again with `after` set to this id (docs/local-api.md, "Paging"). */
  next?: string;
}

export interface ApiOfflineFlushAnswer {
  result: ApiOfflineFlushResult;
}

export interface ApiOfflineItemAnswer {
  item: ApiOfflineItem;
}

export interface ApiMerchantsAnswer {
  merchants: ApiMerchant[];
}

export interface ApiDevicesAnswer {
  devices: ApiDeviceStatus[];
}

/** The agent's log levels, most severe first (docs/operations.md, "Log level"). */
export type ApiLogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** PUT /api/v1/log-level body. */
export interface ApiLogLevelRequest {
  level: ApiLogLevel;
}

/** GET and PUT /api/v1/log-level: the level now (and the one before, after a change). */
export interface ApiLogLevelAnswer {
  level: ApiLogLevel;
  previous?: ApiLogLevel;
}

/**
 * What the counter page needs to speak and format for this terminal and clerk (docs/counter-page.md,
 * "Local API and counter page", languages): answered with every /session answer, signed in or not.
 */
export interface ApiCounterSettings {
  /** Language tag: the clerk's `locale` claim, else api.locale. Picks the catalog (en, de) and number and date formats. */
  locale: string;
  /** IANA zone: the clerk's `zoneinfo` claim, else api.timeZone; absent: the terminal's own. */
  timeZone?: string;
  /**
   * The clerk's `datetimeformat` claim ("YYYY-MM-DDTHH:mm:ssZ"): how the page writes a full date
   * and time (tokens YYYY MM DD HH mm ss Z, in timeZone); absent: per locale.
   */
  dateTimeFormat?: string;
  defaultCurrency: string;
  /** The currencies offered (payments.currencies, the default first), each with its ISO 4217 minor digits. */
  currencies: Array<{ code: string; digits: number }>;
  /** api.outcomeSeconds: how long a final outcome the clerk need not act on stays before the form comes back clean; 0 = until "New sale". */
  outcomeSeconds: number;
}

/** GET/POST/DELETE /session: who is signed in at the counter page; never a token or a session id. */
export interface ApiSessionAnswer {
  signedIn: boolean;
  counter: ApiCounterSettings;
  /** auth.mode custom_token: the page offers "Sign in with the platform" (POST /platform-sign-in). */
  platformSignIn?: boolean;
  staff?: {
    username: string;
    /** For the header: the token's name claim, else the username. */
    name: string;
    /** Signed in against the local verifier while the platform was unreachable. */
    offline: boolean;
    /** The operations the clerk's permissions allow (api.permissions); `refundByWeb`: by web for a sale made at this terminal too. */
    can: {
      cancel: boolean;
      refund: boolean;
      captureAll: boolean;
      registers: boolean;
      refundByWeb: boolean;
      logLevel: boolean;
    };
  };
}

/** A paired cash register (docs/registers.md, "Pairing"); never its key. */
export interface ApiRegister {
  id: string;
  name: string;
  pairedAt: string;
  /** Who started the pairing: a clerk's username or `cli`. */
  pairedBy: string;
  revokedAt?: string;
  /** Its last request since the agent started. */
  lastSeenAt?: string;
}

/** GET /api/v1/registers: the store-network listener and the registers paired with it. */
export interface ApiRegistersAnswer {
  lan: { enabled: boolean; url?: string; fingerprint?: string };
  /** A pairing code is on offer until then. */
  pairing?: { expiresAt: string };
  registers: ApiRegister[];
}

/** POST /api/v1/registers/pairing: the one-time code to enter on the register, and the certificate it should pin. */
export interface ApiPairingOfferAnswer {
  pairing: { code: string; expiresAt: string; fingerprint: string; url: string };
}

/** DELETE /api/v1/registers/{id}. */
export interface ApiRegisterAnswer {
  register: ApiRegister;
}

/** POST /api/v1/pairing on the store-network listener: the register's key, shown this once. */
export interface ApiPairingAnswer {
  register: ApiRegister;
  apiKey: string;
  fingerprint: string;
}
