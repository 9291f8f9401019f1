import type { z } from 'zod';
import {
  endOfDayQuerySchema,
  receiptQuerySchema,
  cancelBodySchema,
  captureAllBodySchema,
  captureBodySchema,
  emptyBodySchema,
  getQuerySchema,
  listQuerySchema,
  noQuerySchema,
  refundBodySchema,
  refundByWebBodySchema,
  saleBodySchema,
  logLevelBodySchema,
  offlineQuerySchema,
  pairingBodySchema,
} from '../shared/index.js';
import {
  agentStatusSchema,
  allowedOperationsAnswerSchema,
  devicesAnswerSchema,
  endOfDayAnswerSchema,
  healthAnswerSchema,
  logLevelAnswerSchema,
  merchantsAnswerSchema,
  offlineAnswerSchema,
  offlineFlushAnswerSchema,
  offlineItemAnswerSchema,
  openApiAnswerSchema,
  pairingAnswerSchema,
  pairingOfferAnswerSchema,
  readinessSchema,
  receiptAnswerSchema,
  registerAnswerSchema,
  registersAnswerSchema,
  transactionAnswerSchema,
  transactionListAnswerSchema,
} from './responses.js';

type ZodObject = z.ZodObject<z.ZodRawShape>;

/** A named schema: the name becomes its entry in components.schemas. */
export interface Named {
  name: string;
  schema: z.ZodType;
}

/**
 * How one route answers when all is well: a JSON schema, or another media type described in
 * words. Several with the same status are one response with several media types (the query's
 * `format` picks one).
 */
export type Success =
  | { status: number; description: string; json: Named }
  | { status: number; description: string; media: string; text: string };

/**
 * One operation of the document (docs/local-api.md): the schemas are the very ones the routes
 * validate with (src/ui/shared/schemas.ts and the route files) and the answers' zod schemas
 * (responses.ts). Writes accept an Idempotency-Key.
 */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The router's path (`:id`); the document writes `{id}`. */
  path: string;
  /** What the path's `{id}` names; a transaction id unless said. */
  idDescription?: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  query?: ZodObject;
  /** Request headers the route reads besides authentication, X-Request-Id and Idempotency-Key. */
  headers?: Array<{ name: string; description: string; schema: Record<string, unknown> }>;
  body?: Named;
  success: Success[];
  /**
   * Error statuses this operation answers besides those every operation of its shape does
   * (document.ts, errorStatuses): what the engine and the platform behind it may refuse.
   */
  errors?: readonly number[];
  /** No credential needed (health probes, pairing with the one-time code). */
  public?: boolean;
  /**
   * Which listener serves it (docs/registers.md, "Registers on the store network"):
   * `loopback` only (the default), `both` (also to paired registers with their register key,
   * narrowed to their own transactions), or `store-network` only (pairing).
   */
  listener?: 'loopback' | 'both' | 'store-network';
}

const named = (name: string, schema: z.ZodType): Named => ({ name, schema });
const TransactionAnswer = named('TransactionAnswer', transactionAnswerSchema);
const TransactionList = named('TransactionList', transactionListAnswerSchema);
const ok = (json: Named, description = 'done'): Success => ({ status: 200, description, json });
const empty = named('EmptyRequest', emptyBodySchema);
const created = (json: Named, description: string): Success => ({ status: 201, description, json });
const Register = 'the register id (GET /api/v1/registers lists them)';

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'health',
    public: true,
    summary: 'Liveness: the agent answers',
    description:
      'Answers 200 while the process serves requests; no credential. Use /readyz to know whether a sale can be taken.',
    success: [ok(named('Health', healthAnswerSchema), 'alive')],
  },
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'health',
    public: true,
    summary: 'Readiness: token held, platform reachable or offline sales allowed, reader connected, journal writable',
    description: '200 when a sale can be taken now; 503 otherwise, with the failing check and why.',
    success: [
      ok(named('Readiness', readinessSchema), 'ready'),
      { status: 503, description: 'not ready: the failing check says why', json: named('Readiness', readinessSchema) },
    ],
  },
  {
    method: 'POST',
    path: '/api/v1/sales',
    errors: [409, 422, 503],
    operationId: 'startSale',
    listener: 'both',
    tag: 'sales',
    summary: 'Start a sale',
    description:
      'Journals the sale and answers 202 at once; follow it over GET /api/v1/events or GET /api/v1/transactions/{id}. Send an Idempotency-Key: a repeat answers the same sale in its current state, never a second sale. `reference` is your own receipt or order number; GET /api/v1/transactions?reference= finds the sale by it.',
    query: noQuerySchema,
    body: named('SaleRequest', saleBodySchema),
    success: [
      {
        status: 202,
        description: 'the sale started (or, repeated with its Idempotency-Key, the same sale now)',
        json: TransactionAnswer,
      },
    ],
  },
  {
    method: 'POST',
    path: '/api/v1/sales/:id/abort',
    errors: [409, 502, 503, 504],
    operationId: 'abortSale',
    listener: 'both',
    tag: 'sales',
    summary: 'Abort a sale still waiting for the customer',
    description:
      "Only while the sale waits for the customer (card, QR, scan). A terminal QR call sale whose outcome is being checked asks the platform to cancel it; the answer is the sale's row, which says what happened.",
    query: noQuerySchema,
    body: empty,
    success: [ok(TransactionAnswer)],
  },
  {
    method: 'GET',
    path: '/api/v1/transactions',
    operationId: 'listTransactions',
    listener: 'both',
    tag: 'transactions',
    summary: 'The journal, newest first',
    description: "`reference` finds the sales made with that caller reference; `date` is the terminal's local day.",
    query: listQuerySchema,
    success: [ok(TransactionList, 'the transactions')],
  },
  {
    method: 'GET',
    path: '/api/v1/transactions/:id',
    errors: [502, 503, 504],
    operationId: 'getTransaction',
    listener: 'both',
    tag: 'transactions',
    summary: 'One transaction by its client or server transaction id',
    description: '`refresh=1` asks the platform first.',
    query: getQuerySchema,
    success: [ok(TransactionAnswer, 'the transaction, with its events')],
  },
  {
    method: 'GET',
    path: '/api/v1/transactions/:id/allowed-operations',
    errors: [502, 503, 504],
    operationId: 'getAllowedOperations',
    listener: 'both',
    tag: 'transactions',
    summary: 'Cancel, refund and capture: allowed now, and up to which amount',
    description:
      'What the payment rules allow now for this sale, each with its reason code when not (the same codes a refused operation answers in `error.reasonCode`), from the journal and, where it knows more, the platform.',
    query: noQuerySchema,
    success: [ok(named('AllowedOperationsAnswer', allowedOperationsAnswerSchema))],
  },
  {
    method: 'GET',
    path: '/api/v1/transactions/:id/receipt',
    operationId: 'getReceipt',
    listener: 'both',
    tag: 'transactions',
    summary: 'The receipt of a final transaction, as JSON or printer text',
    description:
      '`copy` is customer (default) or merchant; `format=text` answers the printer lines for `width` 32 (default) or 48 columns. A transaction not final yet is refused with 409 PAYMENT_STATE; a card is never more than its last four digits (docs/receipts.md, "Receipts").',
    query: receiptQuerySchema,
    success: [
      ok(
        named('ReceiptAnswer', receiptAnswerSchema),
        'the receipt (format=json, the default), or its printer text (format=text)',
      ),
      {
        status: 200,
        description: 'the receipt as printer text',
        media: 'text/plain',
        text: 'the receipt laid out for the printer, `width` columns per line',
      },
    ],
  },
  {
    method: 'POST',
    path: '/api/v1/transactions/:id/cancel',
    errors: [402, 409, 422, 502, 503, 504],
    operationId: 'cancel',
    listener: 'both',
    tag: 'operations',
    summary: 'Cancel (void) a sale',
    description:
      "Reverses a sale not yet captured (or within the wallet's cancel window). Some merchants need a supervisor's `approvalCode`. A lost answer comes back `in_flight`: do not send it again, follow the row.",
    query: noQuerySchema,
    body: named('CancelRequest', cancelBodySchema),
    success: [ok(TransactionAnswer, "the cancel's row (state pending when the platform completes it later)")],
  },
  {
    method: 'POST',
    path: '/api/v1/transactions/:id/refund',
    errors: [402, 409, 422, 502, 503, 504],
    operationId: 'refund',
    listener: 'both',
    tag: 'operations',
    summary: 'Refund a sale',
    description:
      "Gives back a captured sale, wholly or in part (`amount`, up to what is left). Some merchants need a supervisor's `approvalCode`. A refund answered pending is followed until the platform's result.",
    query: noQuerySchema,
    body: named('RefundRequest', refundBodySchema),
    success: [ok(TransactionAnswer, "the refund's row (state pending when the platform completes it later)")],
  },
  {
    method: 'POST',
    path: '/api/v1/transactions/:id/refund-by-web',
    errors: [402, 409, 422, 502, 503, 504],
    operationId: 'refundByWeb',
    tag: 'operations',
    summary: 'Cancel or refund by web: the platform picks which',
    description:
      "The platform decides whether the sale is cancelled or refunded; no approval code applies, so a sale made at this terminal needs its own permission (api.permissions.refundByWeb). Also gives back a web shop's order this terminal did not make.",
    query: noQuerySchema,
    body: named('RefundByWebRequest', refundByWebBodySchema),
    success: [ok(TransactionAnswer, "the operation's row")],
  },
  {
    method: 'POST',
    path: '/api/v1/transactions/:id/capture',
    errors: [402, 409, 422, 502, 503, 504],
    operationId: 'capture',
    listener: 'both',
    tag: 'operations',
    summary: 'Capture an authorized sale',
    description:
      'Captures an authorization, wholly or in part. A sale the platform captured already is recorded as captured.',
    query: noQuerySchema,
    body: named('CaptureRequest', captureBodySchema),
    success: [ok(TransactionAnswer, "the capture's row")],
  },
  {
    method: 'POST',
    path: '/api/v1/capture-all',
    errors: [409, 502, 503, 504],
    operationId: 'captureAll',
    tag: 'operations',
    summary: 'Capture every authorized sale',
    description:
      "One platform call per merchant captures every authorization waiting; `merchantId` limits it to one of the terminal's merchants (another is refused with 400).",
    query: noQuerySchema,
    body: named('CaptureAllRequest', captureAllBodySchema),
    success: [ok(TransactionList, "the captures' rows")],
  },
  {
    method: 'GET',
    path: '/api/v1/offline',
    operationId: 'getOffline',
    tag: 'offline',
    summary: 'Offline queue levels and items (no card data)',
    description:
      'Counts, totals and limits of the offline queue, and its items page by page (`state`, `limit`, `after`). Never card data.',
    query: offlineQuerySchema,
    success: [ok(named('OfflineAnswer', offlineAnswerSchema))],
  },
  {
    method: 'POST',
    path: '/api/v1/offline/flush',
    errors: [503],
    operationId: 'flushOffline',
    tag: 'offline',
    summary: 'Upload the queued offline sales now',
    description:
      "Sends what is queued at once instead of waiting for the uploader's next round; the answer says what was sent and what is left.",
    query: noQuerySchema,
    body: empty,
    success: [ok(named('OfflineFlushAnswer', offlineFlushAnswerSchema))],
  },
  {
    method: 'POST',
    path: '/api/v1/offline/:id/requeue',
    errors: [409, 422, 503],
    operationId: 'requeueOffline',
    tag: 'offline',
    summary: 'Queue an offline sale needing attention again',
    description:
      'For an offline sale needing attention whose cause is fixed (e.g. a token refused): it is queued again and sent with the next round.',
    query: noQuerySchema,
    body: empty,
    success: [ok(named('OfflineItemAnswer', offlineItemAnswerSchema))],
  },
  {
    method: 'GET',
    path: '/api/v1/merchants',
    errors: [502, 503],
    operationId: 'listMerchants',
    tag: 'terminal',
    summary: 'The merchants this terminal acts for (never a secret)',
    description:
      "Names and ids of the merchants the terminal's credentials cover, the default first. Secrets never leave the agent.",
    query: noQuerySchema,
    success: [ok(named('MerchantsAnswer', merchantsAnswerSchema))],
  },
  {
    method: 'GET',
    path: '/api/v1/status',
    operationId: 'getStatus',
    tag: 'terminal',
    summary: 'Agent, readiness, platform, devices and offline queue',
    description:
      "One read for a dashboard: the agent's version and uptime, readiness, the platform's reachability, devices and the offline queue.",
    query: noQuerySchema,
    success: [ok(named('AgentStatus', agentStatusSchema))],
  },
  {
    method: 'GET',
    path: '/api/v1/devices',
    operationId: 'listDevices',
    tag: 'terminal',
    summary: 'Reader, display and scanner states',
    description:
      "Each peripheral's connection state, with the reason when it is not connected, and its model and firmware when known.",
    query: noQuerySchema,
    success: [ok(named('DevicesAnswer', devicesAnswerSchema))],
  },
  {
    method: 'GET',
    path: '/api/v1/qr/:id.svg',
    operationId: 'getQr',
    tag: 'sales',
    summary: 'The wallet QR of a sale waiting for the customer, as SVG',
    description: 'The code the customer scans, drawn by the agent, while the sale waits for the customer.',
    query: noQuerySchema,
    success: [{ status: 200, description: 'the QR code', media: 'image/svg+xml', text: 'an SVG image' }],
  },
  {
    method: 'GET',
    path: '/api/v1/events',
    operationId: 'events',
    listener: 'both',
    tag: 'events',
    summary: 'Server-Sent Events of every bus event',
    description:
      'Each message has `id: <seq>`, `event: <type>` and `data: {seq, type, at, data}`; the first is `event: hello` with `{run, lastSeq}`. Reconnect with `Last-Event-ID: <seq>` to resume from a bounded buffer; a `resync` event says the missed events are gone (reload the state). A new `run` numbers its events from 1 again.',
    query: noQuerySchema,
    headers: [
      {
        name: 'Last-Event-ID',
        description:
          'the `id` of the last event received: the stream resumes after it (EventSource sends it by itself when it reconnects)',
        schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
      },
    ],
    success: [{ status: 200, description: 'the event stream', media: 'text/event-stream', text: 'Server-Sent Events' }],
  },
  {
    method: 'GET',
    path: '/api/v1/log-level',
    operationId: 'getLogLevel',
    tag: 'terminal',
    summary: "The agent's log level now",
    description: 'The level every component logs at now.',
    query: noQuerySchema,
    success: [ok(named('LogLevelAnswer', logLevelAnswerSchema))],
  },
  {
    method: 'PUT',
    path: '/api/v1/log-level',
    errors: [503],
    operationId: 'setLogLevel',
    tag: 'terminal',
    summary: 'Change the log level until the next start or configuration reload',
    description:
      "Lasts until the next start or reload. From a staff session it needs api.permissions.logLevel; a level that hides warnings is written to the journal's audit rows before it takes effect (refused with 503 when it cannot be).",
    query: noQuerySchema,
    body: named('LogLevelRequest', logLevelBodySchema),
    success: [ok(named('LogLevelAnswer', logLevelAnswerSchema), 'the level now and the one before')],
  },
  {
    method: 'GET',
    path: '/api/v1/reports/end-of-day',
    operationId: 'getEndOfDay',
    tag: 'reports',
    summary: "The day's totals from the journal, as JSON, CSV or printer text",
    description:
      '`date` (YYYY-MM-DD) is the local day in `timeZone` (an IANA name), by default today in the merchant\'s zone; `format` is json (default), csv or text (`width` 32 or 48 columns). Amounts are integer minor units (docs/receipts.md, "End of day").',
    query: endOfDayQuerySchema,
    success: [
      ok(
        named('EndOfDayAnswer', endOfDayAnswerSchema),
        'the report (format=json, the default), as CSV (format=csv) or as printer text (format=text)',
      ),
      {
        status: 200,
        description: 'the report as CSV',
        media: 'text/csv',
        text: 'a header line, then one line per group (merchant, method, operator) and currency; sent as the attachment end-of-day-<date>.csv',
      },
      {
        status: 200,
        description: 'the report as printer text',
        media: 'text/plain',
        text: 'the report laid out for the printer, `width` columns per line',
      },
    ],
  },
  {
    method: 'GET',
    path: '/api/v1/registers',
    operationId: 'listRegisters',
    tag: 'registers',
    summary: 'The store-network listener and the cash registers paired with it (never a key)',
    description:
      "Whether the store-network listener is on, where, with its certificate's fingerprint, and the paired registers with their names and their last request since the agent started.",
    query: noQuerySchema,
    success: [ok(named('RegistersAnswer', registersAnswerSchema))],
  },
  {
    method: 'POST',
    path: '/api/v1/registers/pairing',
    errors: [503],
    operationId: 'startPairing',
    tag: 'registers',
    summary: 'Offer a one-time pairing code for a register',
    description:
      'Answers the code to enter on the register, its expiry, the store-network listener\'s URL and its certificate fingerprint; a new code replaces the one on offer. Refused with LAN_DISABLED while the store-network listener is off (docs/registers.md, "Pairing").',
    query: noQuerySchema,
    body: empty,
    success: [created(named('PairingOfferAnswer', pairingOfferAnswerSchema), 'the code on offer')],
  },
  {
    method: 'DELETE',
    path: '/api/v1/registers/:id',
    operationId: 'revokeRegister',
    tag: 'registers',
    idDescription: Register,
    summary: 'Revoke a paired register: its key stops working at once and its event streams close',
    description: "The register's key stops working at once and its open event streams close; its journal rows stay.",
    query: noQuerySchema,
    success: [ok(named('RegisterAnswer', registerAnswerSchema), 'the register, now with revokedAt')],
  },
  {
    method: 'POST',
    path: '/api/v1/pairing',
    errors: [409, 429],
    operationId: 'pair',
    listener: 'store-network',
    public: true,
    tag: 'registers',
    summary: 'Pair a register with the code the terminal shows (store-network listener only)',
    description:
      'Served only on the store-network listener (api.lan.*, HTTPS with the terminal\'s certificate: pin the fingerprint the terminal shows), never on loopback. No credential: the one-time code is the proof. The answer\'s `apiKey` is shown this once; send it as `Authorization: Bearer` (registerKey) from then on. A wrong code is 401; an address guessing codes is answered 429 with Retry-After (docs/registers.md, "Pairing").',
    query: noQuerySchema,
    body: named('PairingRequest', pairingBodySchema),
    success: [created(named('PairingAnswer', pairingAnswerSchema), 'paired: the register and its key')],
  },
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApi',
    tag: 'terminal',
    summary: 'This document',
    description: 'The document of this API as this agent serves it (also in the repository as docs/openapi.json).',
    query: noQuerySchema,
    success: [ok(named('OpenApiDocument', openApiAnswerSchema), 'the OpenAPI 3.1 document')],
  },
];
