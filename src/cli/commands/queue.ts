import { Option, type Command } from 'commander';
import type { FlushReport, QueueItem, QueueState } from '../../offline/index.js';
import { configFor } from '../options.js';
import { usageError } from '../usage.js';

/**
 * `terminal-agent queue …`: the offline queue as field engineers and staff see it. ls,
 * show and export open the journal database read-only (queue-report.ts); flush and
 * requeue ask the running agent over the local API, since only it may write the queue
 * (docs/offline.md, "Offline queue"). Nothing here prints card data: queue items
 * carry the masked PAN at most.
 */

/** The queue states for the help text, without loading the offline folder; the type keeps them in step with QUEUE_STATES. */
const STATE_NAMES = [
  'queued',
  'uploading',
  'uploaded',
  'declined_after_upload',
  'needs_attention',
] as const satisfies readonly QueueState[];
type Expect<T extends true> = T;
export type StateNamesCoverTheQueue = Expect<
  [Exclude<QueueState, (typeof STATE_NAMES)[number]>] extends [never] ? true : false
>;

export function register(program: Command): void {
  const queue = program
    .command('queue')
    .description('offline card sales waiting for upload: list, show, upload now, queue again, export');

  queue
    .command('ls')
    .description('list the offline queue with states (reads the database read-only)')
    .option('--state <states>', `only these states, comma separated (${STATE_NAMES.join(', ')})`)
    .option('--limit <n>', 'at most this many, oldest first', '100')
    .option('--after <id>', 'the items after this one (the `next` of the page before)')
    .action(async (opts: { state?: string; limit: string; after?: string; json?: boolean }, cmd: Command) => {
      if (!/^\d{1,6}$/.test(opts.limit) || Number(opts.limit) < 1)
        throw usageError('--limit must be a whole number from 1 to 999999');
      const { config } = await configFor(cmd);
      const { itemLine, levelsLine, moreLine, out, parseStates, withQueue } = await import('../queue-report.js');
      const states = parseStates(opts.state);
      withQueue(config, (q) => {
        // A page, not the whole queue: it keeps every uploaded sale (docs/operations.md, "Offline queue commands").
        const page = q.page(states, Number(opts.limit), opts.after);
        const levels = q.levels();
        if (opts.json)
          out(
            JSON.stringify(
              { levels, items: page.items, ...(page.next !== undefined ? { next: page.next, more: page.more } : {}) },
              null,
              2,
            ),
          );
        else
          out(
            [
              levelsLine(levels),
              ...(page.items.length === 0 ? ['no offline sales'] : page.items.map(itemLine)),
              ...(page.next !== undefined ? [moreLine(page)] : []),
            ].join('\n'),
          );
      });
    });

  queue
    .command('show')
    .description('one offline sale with its upload history')
    .argument('<id>', 'client transaction id')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { AgentError, ErrorCodes } = await import('../../core/index.js');
      const { itemDetail, out, withQueue } = await import('../queue-report.js');
      withQueue(config, (q) => {
        const item = q.get(id);
        if (item === undefined)
          throw new AgentError(ErrorCodes.PAYMENT_NOT_FOUND, `no offline sale ${id.slice(0, 80)} in the queue`);
        out(opts.json ? JSON.stringify({ item }, null, 2) : itemDetail(item));
      });
    });

  queue
    .command('flush')
    .description('ask the running agent to upload the offline queue now')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { flushLines, out } = await import('../queue-report.js');
      const client = LocalApiClient.fromConfig(config);
      // The agent answers with its uploader's full report (more than ApiOfflineFlushResult).
      const { result } = await client.call<{ result: FlushReport }>('POST', '/api/v1/offline/flush', {});
      out(opts.json ? JSON.stringify({ result }, null, 2) : flushLines(result));
      if (result.remaining > 0 || result.needsAttention > 0) process.exitCode = 2;
    });

  queue
    .command('requeue')
    .description('ask the running agent to queue a sale needing attention again (once its cause is fixed)')
    .argument('<id>', 'client transaction id')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { out } = await import('../queue-report.js');
      const client = LocalApiClient.fromConfig(config);
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
    .addOption(new Option('--format <format>', 'csv or json (default csv; json with --json)').choices(['csv', 'json']))
    .option('--output <file>', 'write to this file (mode 0600) instead of stdout')
    .option('--state <states>', 'only these states, comma separated')
    .action(async (opts: { format?: string; output?: string; state?: string; json?: boolean }, cmd: Command) => {
      // Under --json stdout is JSON: the export itself, or with --output a note of the file written.
      if (opts.json && opts.format === 'csv' && opts.output === undefined)
        throw usageError('--json prints JSON: give --output FILE for a csv export');
      const format = opts.format ?? (opts.json ? 'json' : 'csv');
      const { config } = await configFor(cmd);
      const { closeSync, openSync, writeSync } = await import('node:fs');
      const { csvChunks, jsonChunks } = await import('../../offline/index.js');
      const { out, parseStates, withQueue } = await import('../queue-report.js');
      const states = parseStates(opts.state);
      // Streamed (docs/operations.md, "Offline queue commands"): the rows are read, written and
      // dropped a chunk at a time, so a queue that kept years of uploaded sales fits in memory.
      const fd = opts.output === undefined ? undefined : openSync(opts.output, 'w', 0o600);
      let count = 0;
      try {
        withQueue(config, (q) => {
          const counted = (function* (items: Iterable<QueueItem>): Generator<QueueItem> {
            for (const item of items) {
              count += 1;
              yield item;
            }
          })(q.iterate(states));
          const chunks = format === 'csv' ? csvChunks(counted) : jsonChunks(counted, new Date().toISOString());
          for (const chunk of chunks) {
            if (fd === undefined) process.stdout.write(chunk);
            else writeSync(fd, chunk);
          }
        });
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      if (opts.output !== undefined)
        out(opts.json ? JSON.stringify({ output: opts.output, format, count }, null, 2) : `exported to ${opts.output}`);
    });
}
