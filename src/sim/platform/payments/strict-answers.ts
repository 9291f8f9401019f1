import { createHash } from 'node:crypto';
import { instantOf, serverTime12 } from './dates.js';

/**
 * The strict profile's answers of the payment API (docs/demo-platform.md, "Demo platform"):
 * the same content as the standard profile, written from the extremes the platform
 * contract allows, so an agent that assumes more than the contract promises fails a test:
 *
 * - every optional field the answer does not fill is present as `null` (record, events,
 *   instrument, source, allowed operations);
 * - unknown fields at the top level, in every event and in nested objects;
 * - an event of a type the agent does not know, after the first event of each history;
 * - amounts in result events as `value` strings (`{value: "1234", currency}`) in place of
 *   the integer `amount`;
 * - server times (`serverProcessingDateTime`, `paymentTime`, `expireTime`) in the 12-hour
 *   form with one-digit parts (`1/5/2026 9:07:03 PM`) in the platform's time zone.
 *
 * Applied to a copy of each JSON answer when it leaves; nothing of the platform's state
 * changes, so the profile can be switched at any time. Every value added is derived from
 * the answer itself: the same record reads the same on every call (the agent delivers each
 * platform event once, so an event must not change between two status calls).
 */

/** Fields the spec lists for a transaction record; those the platform does not fill are sent as null. */
const RECORD_FIELDS = [
  'transactionType',
  'clientTransactionId',
  'relatedServerTransactionId',
  'tenantId',
  'merchantAggregatorId',
  'merchantId',
];

/** Fields the spec lists for an event ("which ones appear depends on the event type"): the others are null. */
const EVENT_FIELDS = [
  'eventType',
  'serverProcessingDateTime',
  'clientDateTime',
  'authorizationAmount',
  'cancelAmount',
  'refundAmount',
  'instrument',
  'source',
  'requestor',
  'result',
  'resultMessage',
  'resultData',
  'cancelReason',
  'paymentRequestId',
  'refundId',
  'refundTime',
  'WalletId',
];
const INSTRUMENT_FIELDS = ['instrumentType', 'paymentScenario', 'walletId'];
const SOURCE_FIELDS = ['sourceType', 'storeId', 'logicalDeviceId', 'physicalDeviceId', 'acquirerName', 'requestor'];
/** Server-produced times (refundTime stays ISO 8601 with its offset, as the spec has it). */
const SERVER_TIMES = new Set(['serverProcessingDateTime', 'paymentTime', 'expireTime']);

/** An event type no agent knows of; its fields are what a platform might add one day. */
const UNKNOWN_EVENT_TYPE = 'platformRiskAssessment';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function tag(...parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

function fillNulls(o: Obj, fields: readonly string[]): void {
  for (const f of fields) if (!(f in o) || o[f] === undefined) o[f] = null;
}

/** Server times anywhere inside `v` rewritten in the 12-hour form of the zone. */
function rewriteTimes(v: unknown, timeZone: string): void {
  if (Array.isArray(v)) {
    for (const e of v) rewriteTimes(e, timeZone);
    return;
  }
  if (!isObj(v)) return;
  for (const [k, value] of Object.entries(v)) {
    if (SERVER_TIMES.has(k) && typeof value === 'string') {
      const at = instantOf(value);
      if (at !== undefined) v[k] = serverTime12(at, timeZone);
    } else rewriteTimes(value, timeZone);
  }
}

/** `{amount, currency}` objects anywhere inside `v` become `{value: "<amount>", currency}` (minor units as a string). */
function valueAmounts(v: unknown): void {
  if (Array.isArray(v)) {
    for (const e of v) valueAmounts(e);
    return;
  }
  if (!isObj(v)) return;
  if (typeof v.amount === 'number' && typeof v.currency === 'string') {
    v.value = String(v.amount);
    delete v.amount;
  }
  for (const value of Object.values(v)) valueAmounts(value);
}

function strictEvent(event: Obj, index: number, serverId: unknown): Obj {
  const e: Obj = { ...event };
  const type = typeof e.eventType === 'string' ? e.eventType : '';
  if (!/Request$/.test(type)) valueAmounts(e);
  if (isObj(e.instrument)) fillNulls(e.instrument, INSTRUMENT_FIELDS);
  if (isObj(e.source)) fillNulls(e.source, SOURCE_FIELDS);
  if (isObj(e.resultData)) e.resultData.providerExtension = { schemaVersion: 3, traceId: tag(serverId, index, 'data') };
  fillNulls(e, EVENT_FIELDS);
  e.eventSequence = index + 1;
  e.channelInfo = { channelId: null, gateway: { region: 'ap-southeast', node: tag(serverId, index).slice(0, 6) } };
  return e;
}

function unknownEvent(first: Obj, serverId: unknown): Obj {
  const e: Obj = {
    eventType: UNKNOWN_EVENT_TYPE,
    serverProcessingDateTime: first.serverProcessingDateTime ?? null,
    result: 'Passed',
    riskScore: 12,
    riskRules: [{ rule: 'velocity', outcome: 'pass' }],
    assessmentId: tag(serverId, 'risk'),
  };
  fillNulls(e, EVENT_FIELDS);
  return e;
}

function strictRecord(record: Obj, timeZone: string): Obj {
  const r: Obj = { ...record };
  const serverId = r.serverTransactionId;
  fillNulls(r, RECORD_FIELDS);
  const events = Array.isArray(r.events) ? r.events.filter(isObj) : [];
  const shaped = events.map((e, i) => strictEvent(e, i, serverId));
  const first = shaped[0];
  if (first !== undefined && shaped.length >= 2) shaped.splice(1, 0, unknownEvent(first, serverId));
  r.events = shaped;
  r.platformTraceId = tag(serverId, 'trace');
  r.extensions = { settlementBatch: null, riskProfile: { level: 'low', reviewed: false } };
  rewriteTimes(r, timeZone);
  return r;
}

const isRecord = (v: unknown): v is Obj => isObj(v) && 'transactionStatus' in v && 'serverTransactionId' in v;

/**
 * The contract's record {allowed, maxAmount, currency} and nothing the agent could lean on
 * beyond it: the contract's fields null when not filled, plus one field no agent knows.
 */
function strictAllowed(answer: Obj): Obj {
  const a: Obj = { allowed: answer.allowed, maxAmount: answer.maxAmount, currency: answer.currency };
  fillNulls(a, ['maxAmount', 'currency']);
  a.evaluatedRules = ['window', 'amount'];
  return a;
}

/** The answer of a payment API route as the strict profile writes it; `timeZone` is the platform's. */
export function strictAnswer(body: unknown, timeZone: string): unknown {
  const copy = structuredClone(body);
  if (isRecord(copy)) return strictRecord(copy, timeZone);
  if (isObj(copy) && Array.isArray(copy.transactions)) {
    return {
      ...copy,
      transactions: (copy.transactions as unknown[]).map((t) => (isRecord(t) ? strictRecord(t, timeZone) : t)),
      batchId: tag('batch', copy.transactions.length),
    };
  }
  if (isObj(copy) && typeof copy.allowed === 'boolean') return strictAllowed(copy);
  if (Array.isArray(copy)) return (copy as unknown[]).map((e) => (isObj(e) ? { ...e, region: null } : e));
  if (isObj(copy)) return { ...copy, checkedAt: null, platformVersion: '1.0.0' };
  return copy;
}
