import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { JournalCheck, RetentionFacts } from '../../payments/index.js';
import { configFor } from '../options.js';

/** Exit code of `journal check` when the journal is damaged or was emptied. */
export const JOURNAL_DAMAGED_EXIT = 2;

function counts(c: Record<string, number> | undefined): string {
  if (c === undefined) return 'none';
  const entries = Object.entries(c);
  return entries.length === 0 ? '0' : entries.map(([k, n]) => `${k} ${n}`).join(', ');
}

/** What `journal check` prints: the integrity check and, for a journal the agent may start on, its retention. */
type CheckReport = JournalCheck & { retention?: RetentionFacts };

function report(c: CheckReport): string {
  const verdict =
    c.state === 'ok'
      ? 'ok'
      : c.state === 'missing'
        ? 'no journal (a new data directory)'
        : c.state === 'emptied'
          ? 'EMPTIED'
          : 'DAMAGED';
  const lines = [`journal ${c.file}: ${verdict}`];
  if (c.problem !== undefined) lines.push(`  found: ${c.problem}`);
  if (c.sizeBytes !== undefined)
    lines.push(
      `  size: ${c.sizeBytes} bytes${c.pageSize !== undefined ? ` (${c.pages ?? 0} pages of ${c.pageSize})` : ''}; write-ahead log ${c.walBytes ?? 0} bytes`,
    );
  lines.push(`  marker ${c.marker}: ${c.markerPresent ? 'present (a journal was kept here)' : 'absent'}`);
  lines.push(
    `  checked: ${c.checked === 'full' ? 'header, size and every page (quick_check)' : c.checked === 'header' ? (c.state === 'damaged' ? 'header and size' : 'header, size and schema only (the file is above the check bound)') : 'nothing to check'}`,
  );
  if (c.schemaVersion !== undefined) lines.push(`  schema version: ${c.schemaVersion}`);
  if (c.rows !== undefined) lines.push(`  transactions: ${counts(c.rows)}`);
  if (c.queue !== undefined) lines.push(`  offline queue: ${counts(c.queue)}`);
  if (c.cardDataRows !== undefined) lines.push(`  rows holding card data: ${c.cardDataRows}`);
  if (c.sizeBytes !== undefined)
    lines.push(
      `  on disk: ${c.sizeBytes + (c.walBytes ?? 0)} bytes (file and write-ahead log)${c.freePages !== undefined ? `, ${c.freePages} free pages` : ''}${c.autoVacuum !== undefined ? `, auto_vacuum ${c.autoVacuum}` : ''}`,
    );
  if (c.oldestRowAt !== undefined) lines.push(`  oldest row: ${c.oldestRowAt ?? 'none'}`);
  if (c.retention !== undefined) {
    lines.push(
      `  retention: ${c.retention.retentionDays === 0 ? 'off (everything kept)' : `${c.retention.retentionDays} days`}; ${c.retention.schedule}`,
    );
    if (c.retention.lastPrune !== null)
      lines.push(`  last prune: ${c.retention.lastPrune.at}, ${c.retention.lastPrune.rows} rows removed`);
  }
  if (c.state === 'damaged' || c.state === 'emptied') {
    lines.push(
      '  do: stop the agent; move the journal\'s files aside (never delete them: they may hold sales to reconcile); put a backup in place or start with an empty journal (docs/operations.md, "Troubleshooting")',
    );
  }
  return lines.join('\n');
}

/**
 * `terminal-agent journal check`: the integrity check the agent runs at start, for field
 * engineers (docs/operations.md, "CLI commands"). Read-only: it never creates, repairs or
 * moves anything. Exit 0 when the agent would start on the journal, 2 when it is damaged
 * or was emptied.
 */
export function register(program: Command): void {
  const journal = program.command('journal').description('the transaction journal in the data directory');
  journal
    .command('check')
    .description('check the journal read-only as the agent does at start: exit 0 ok, 2 damaged or emptied')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { checkJournal, retentionFacts, JOURNAL_FILE } = await import('../../payments/index.js');
      const file = join(config.dataDir, JOURNAL_FILE);
      const checked = checkJournal(file);
      const result: CheckReport =
        checked.state === 'ok' || checked.state === 'missing'
          ? { ...checked, retention: retentionFacts(file, config.journal.retentionDays) }
          : checked;
      process.stdout.write(`${opts.json ? JSON.stringify(result, null, 2) : report(result)}\n`);
      if (result.state === 'damaged' || result.state === 'emptied') process.exitCode = JOURNAL_DAMAGED_EXIT;
    });
  journal
    .command('compact')
    .description(
      'switch the journal to incremental vacuum and give its free pages back (one VACUUM; the agent stopped)',
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { AgentError, ErrorCodes } = await import('../../core/index.js');
      const { Journal, JOURNAL_FILE, agentOnJournal, autoVacuumMode, compactJournal } =
        await import('../../payments/index.js');
      const file = join(config.dataDir, JOURNAL_FILE);
      // VACUUM holds the write lock while it rewrites the file: a running agent's writes would fail meanwhile.
      const pid = agentOnJournal(file);
      if (pid !== undefined)
        throw new AgentError(
          ErrorCodes.INPUT_INVALID,
          `the agent (process ${pid}) runs on ${file}: stop it first (systemctl stop terminal-agent), then run journal compact`,
        );
      const before = statSync(file).size;
      // Opened without the switch at open, so the mode before is the file's own.
      const journal = new Journal({ dataDir: config.dataDir, compactMaxBytes: 0 });
      try {
        const from = autoVacuumMode(journal.db);
        const to = compactJournal(journal.db);
        journal.scrub();
        const after = statSync(file).size;
        const result = { file, autoVacuum: { before: from, after: to }, bytes: { before, after } };
        process.stdout.write(
          `${opts.json ? JSON.stringify(result) : `journal ${file}: auto_vacuum ${from} -> ${to}; ${before} -> ${after} bytes`}\n`,
        );
        if (to !== 'incremental')
          throw new AgentError(
            ErrorCodes.JOURNAL_UNWRITABLE,
            `journal ${file} was not compacted (no room for a copy of it, or another process holds it): free about twice its size and try again; nothing was changed`,
          );
      } finally {
        journal.close();
      }
    });
}
