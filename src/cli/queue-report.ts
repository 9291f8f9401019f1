import type { Config } from '../config/index.js';
import { onePage } from '../core/index.js';
import {
  computeLevels,
  openQueueReadOnly,
  QUEUE_STATES,
  type FlushReport,
  type OfflineLevels,
  type QueueItem,
  type QueueState,
} from '../offline/index.js';
import { formatAmount } from '../payments/index.js';
import { usageError } from './usage.js';

/**
 * What `terminal-agent queue` reads and prints: the queue opened read-only and its text
 * form. Loaded by the queue commands when they run (it opens SQLite through the offline
 * folder). Nothing here prints card data: queue items carry the masked PAN at most.
 */

export const out = (text: string): void => {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};

function money(minor: number, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return `${minor} ${currency}`;
  }
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  if (h < 1) return `${Math.round(ms / 60_000)} min`;
  return Number.isInteger(h) ? `${h} h` : `${h.toFixed(1)} h`;
}

/** One page of `queue ls`: the items, the last one's id when more follow, and how many more. */
export interface QueuePage {
  items: QueueItem[];
  next?: string;
  more: number;
}

export interface QueueReader {
  /** At most `limit` items after `after`, oldest first, read in one snapshot with how many more there are. */
  page: (states: readonly QueueState[] | undefined, limit: number, after?: string) => QueuePage;
  /** The same items one at a time (exports: bounded memory however long the queue). */
  iterate: (states?: readonly QueueState[]) => Iterable<QueueItem>;
  get: (id: string) => QueueItem | undefined;
  levels: () => OfflineLevels;
}

export function withQueue<T>(config: Config, fn: (items: QueueReader) => T): T {
  const ro = openQueueReadOnly(config.dataDir);
  try {
    const exists = ro.queue.exists();
    return fn({
      page: (states, limit, after) => {
        // No queue table yet (the agent never ran offline on this file): nothing to list, after any id.
        if (!exists) return { items: [], more: 0 };
        // One read transaction: the page and the count are of the same moment, whatever the agent writes meanwhile.
        return ro.queue.db.transaction((): QueuePage => {
          // One item more than the page tells whether another follows; the rest is only counted.
          const rows = ro.queue.list({
            ...(states !== undefined ? { states } : {}),
            ...(after !== undefined ? { after } : {}),
            limit: limit + 1,
          });
          const { items, next } = onePage(rows, limit, (i) => i.clientTransactionId);
          if (next === undefined) return { items, more: 0 };
          return { items, next, more: ro.queue.count({ ...(states !== undefined ? { states } : {}), after: next }) };
        })();
      },
      iterate: (states) => (exists ? ro.queue.iterate(states !== undefined ? { states } : {}) : []),
      get: (id) => (exists ? ro.queue.get(id) : undefined),
      levels: () =>
        computeLevels(
          config.offline,
          exists ? ro.queue.stats() : { count: 0, totals: {} },
          exists
            ? ro.queue.stateCounts()
            : (Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>),
          'unknown',
          Date.now(),
        ),
    });
  } finally {
    ro.close();
  }
}

export function parseStates(value: string | undefined): QueueState[] | undefined {
  if (value === undefined) return undefined;
  const states = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const s of states) {
    if (!(QUEUE_STATES as readonly string[]).includes(s)) {
      throw usageError(`unknown queue state "${s.slice(0, 30)}": use ${QUEUE_STATES.join(', ')}`);
    }
  }
  return states as QueueState[];
}

export function levelsLine(l: OfflineLevels): string {
  const parts = [`${l.count.stored} of ${l.count.max} offline sales stored`];
  for (const t of l.totals) {
    if (t.stored === 0) continue;
    parts.push(
      t.max === null
        ? `${money(t.stored, t.currency)} (no total limit)`
        : `${money(t.stored, t.currency)} of ${money(t.max, t.currency)}`,
    );
  }
  if (l.age.oldestAgeMs !== null) parts.push(`oldest ${hours(l.age.oldestAgeMs)} of ${hours(l.age.maxAgeMs)}`);
  if (l.states.needs_attention > 0) parts.push(`${l.states.needs_attention} need attention`);
  if (l.states.declined_after_upload > 0) parts.push(`${l.states.declined_after_upload} declined after upload`);
  if (!l.enabled) parts.push('offline sales turned off');
  return parts.join(' · ');
}

export function itemLine(i: QueueItem): string {
  return [
    i.storedAt.slice(0, 19).replace('T', ' '),
    i.clientTransactionId,
    money(i.amount, i.currency).padStart(14),
    i.state.padEnd(21),
    `tries ${i.tries}`,
    i.maskedPan ?? '',
    i.message ?? '',
  ]
    .filter((c) => c !== '')
    .join('  ');
}

/** Said when `queue ls` stopped early: how many more, and how to see them. */
export function moreLine(page: QueuePage): string {
  return `… and ${page.more} more: --after ${page.next ?? ''} lists the next ones, a higher --limit more at once, \`queue export\` all of them`;
}

export function itemDetail(i: QueueItem): string {
  const lines = [
    `offline sale ${i.clientTransactionId}: ${i.state}${i.platformStatus !== undefined ? ` (platform: ${i.platformStatus})` : ''}`,
    `  amount            ${money(i.amount, i.currency)}`,
    `  merchant          ${i.merchantId ?? '(default)'}`,
    `  card              ${[i.maskedPan, i.scheme, i.entryMode].filter((x) => x !== undefined).join(' ')}`,
    `  clientDateTime    ${i.clientDateTime}`,
    `  stored            ${i.storedAt}`,
    `  server id         ${i.serverTransactionId ?? '-'}`,
    `  tries             ${i.tries} (refused ${i.rejections})`,
    `  card data held    ${i.holdsCardData ? 'yes, until the platform confirms' : 'no'}`,
  ];
  if (i.message !== undefined) lines.push(`  message           ${i.message}`);
  if (i.history.length > 0) {
    lines.push('  history');
    for (const h of i.history)
      lines.push(
        `    ${h.at}  ${h.outcome.padEnd(10)}${h.status !== undefined ? ` ${h.status}` : ''}${h.message !== undefined ? `  ${h.message}` : ''}`,
      );
  }
  return lines.join('\n');
}

export function flushLines(r: FlushReport): string {
  if (r.platform === 'offline') return `platform not reachable: nothing uploaded, ${r.remaining} waiting`;
  const lines = [
    `uploaded ${r.uploaded}, declined after upload ${r.declinedAfterUpload}, refused ${r.rejected}, need attention ${r.needsAttention}, deferred ${r.deferred}; ${r.remaining} waiting`,
  ];
  for (const i of r.items)
    lines.push(`  ${i.clientTransactionId}  ${i.result}${i.message !== undefined ? `  ${i.message}` : ''}`);
  return lines.join('\n');
}
