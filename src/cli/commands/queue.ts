import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { AgentError, ErrorCodes } from '../../core/errors.js';
import { computeLevels } from '../../offline/policy.js';
import { openQueueReadOnly } from '../../offline/read-only.js';
import { toCsv, toJson } from '../../offline/export.js';
import { QUEUE_STATES, type OfflineLevels, type QueueItem, type QueueState } from '../../offline/types.js';
import type { FlushReport } from '../../offline/uploader.js';
import { formatAmount } from '../../payments/money.js';
import { LocalApiClient } from '../local-api-client.js';
import { configFor } from '../options.js';

/**
 * `terminal-agent queue …` (issue 6): the offline queue as field engineers and staff see
 * it. ls, show and export open the journal database read-only (STYLE.md 9); flush and
 * requeue ask the running agent over the local API, since only it may write the queue.
 * Nothing here prints card data: queue items carry the masked PAN at most.
 */

const out = (text: string): void => {
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

function withQueue<T>(config: Config, fn: (items: { list: (states?: readonly QueueState[]) => QueueItem[]; get: (id: string) => QueueItem | undefined; levels: () => OfflineLevels }) => T): T {
  const ro = openQueueReadOnly(config.dataDir);
  try {
    const exists = ro.queue.exists();
    return fn({
      list: (states) => (exists ? ro.queue.list(states !== undefined ? { states } : {}) : []),
      get: (id) => (exists ? ro.queue.get(id) : undefined),
      levels: () =>
        computeLevels(
          config.offline,
          exists ? ro.queue.stats() : { count: 0, totals: {} },
          exists ? ro.queue.stateCounts() : (Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>),
          'unknown',
          Date.now(),
        ),
    });
  } finally {
    ro.close();
  }
}

function parseStates(value: string | undefined): QueueState[] | undefined {
  if (value === undefined) return undefined;
  const states = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const s of states) {
    if (!(QUEUE_STATES as readonly string[]).includes(s)) {
      throw new AgentError(ErrorCodes.API_BAD_REQUEST, `unknown queue state "${s.slice(0, 30)}": use ${QUEUE_STATES.join(', ')}`);
    }
  }
  return states as QueueState[];
}

export function levelsLine(l: OfflineLevels): string {
  const parts = [`${l.count.stored} of ${l.count.max} offline sales stored`];
  for (const t of l.totals) {
    if (t.stored === 0) continue;
    parts.push(t.max === null ? `${money(t.stored, t.currency)} (no total limit)` : `${money(t.stored, t.currency)} of ${money(t.max, t.currency)}`);
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
    for (const h of i.history) lines.push(`    ${h.at}  ${h.outcome.padEnd(10)}${h.status !== undefined ? ` ${h.status}` : ''}${h.message !== undefined ? `  ${h.message}` : ''}`);
  }
  return lines.join('\n');
}

export function flushLines(r: FlushReport): string {
  if (r.platform === 'offline') return `platform not reachable: nothing uploaded, ${r.remaining} waiting`;
  const lines = [
    `uploaded ${r.uploaded}, declined after upload ${r.declinedAfterUpload}, refused ${r.rejected}, need attention ${r.needsAttention}, deferred ${r.deferred}; ${r.remaining} waiting`,
  ];
  for (const i of r.items) lines.push(`  ${i.clientTransactionId}  ${i.result}${i.message !== undefined ? `  ${i.message}` : ''}`);
  return lines.join('\n');
}

export function register(program: Command): void {
  const queue = program.command('queue').description('offline card sales waiting for upload: list, show, upload now, queue again, export');

  queue
    .command('ls')
    .description('list the offline queue with states (reads the database read-only)')
    .option('--state <states>', `only these states, comma separated (${QUEUE_STATES.join(', ')})`)
    .option('--json', 'print JSON')
    .action((opts: { state?: string; json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const states = parseStates(opts.state);
      withQueue(config, (q) => {
        const items = q.list(states);
        const levels = q.levels();
        if (opts.json) out(JSON.stringify({ levels, items }, null, 2));
        else out([levelsLine(levels), ...(items.length === 0 ? ['no offline sales'] : items.map(itemLine))].join('\n'));
      });
    });

  queue
    .command('show')
    .description('one offline sale with its upload history')
    .argument('<id>', 'client transaction id')
    .option('--json', 'print JSON')
    .action((id: string, opts: { json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      withQueue(config, (q) => {
        const item = q.get(id);
        if (item === undefined) throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no offline sale ${id.slice(0, 80)} in the queue`);
        out(opts.json ? JSON.stringify({ item }, null, 2) : itemDetail(item));
      });
    });

  queue
    .command('flush')
    .description('ask the running agent to upload the offline queue now')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const client = LocalApiClient.fromConfig(configFor(cmd).config);
      const { result } = await client.call<{ result: FlushReport }>('POST', '/api/offline/flush', {});
      out(opts.json ? JSON.stringify({ result }, null, 2) : flushLines(result));
      if (result.remaining > 0 || result.needsAttention > 0) process.exitCode = 2;
    });

  queue
    .command('requeue')
    .description('ask the running agent to queue a sale needing attention again (once its cause is fixed)')
    .argument('<id>', 'client transaction id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const client = LocalApiClient.fromConfig(configFor(cmd).config);
      const item = await client.requeueOffline(id);
      out(
        opts.json
          ? JSON.stringify({ item }, null, 2)
          : `offline sale ${item.clientTransactionId} (${item.amountText}${item.maskedPan !== undefined ? `, ${item.maskedPan}` : ''}) is ${item.state} again: the agent uploads it when the platform is reachable`,
      );
    });

  queue
    .command('export')
    .description('redacted export for reconciliation: no card data, masked PAN only')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--output <file>', 'write to this file (mode 0600) instead of stdout')
    .option('--state <states>', 'only these states, comma separated')
    .action((opts: { format: string; output?: string; state?: string }, cmd: Command) => {
      if (opts.format !== 'csv' && opts.format !== 'json') throw new AgentError(ErrorCodes.API_BAD_REQUEST, `--format must be csv or json, not "${opts.format.slice(0, 20)}"`);
      const { config } = configFor(cmd);
      const states = parseStates(opts.state);
      const text = withQueue(config, (q) => {
        const items = q.list(states);
        return opts.format === 'csv' ? toCsv(items) : toJson(items, new Date().toISOString());
      });
      if (opts.output === undefined) process.stdout.write(text);
      else {
        writeFileSync(opts.output, text, { mode: 0o600 });
        out(`exported to ${opts.output}`);
      }
    });
}
