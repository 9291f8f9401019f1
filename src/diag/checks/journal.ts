import { join } from 'node:path';
import { describeError } from '../../core/index.js';
import { checkJournal, JOURNAL_FILE, retentionFacts } from '../../payments/index.js';
import type { DiagState } from '../state.js';
import type { Outcome } from '../types.js';

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/**
 * The journal's size on disk, its oldest row and its retention (docs/journal.md, "Retention"):
 * the integrity check `journal check` runs, read-only, and the running agent's prune schedule.
 */
export function checkJournalSpace(state: DiagState): Outcome {
  const config = state.config;
  if (config === undefined) return { status: 'skip', finding: 'needs the configuration (see config)' };
  const file = join(config.dataDir, JOURNAL_FILE);
  let c;
  try {
    c = checkJournal(file);
  } catch (err) {
    return {
      status: 'fail',
      finding: describeError(err),
      remedy: "run diag as the agent's user; check that the data directory's files are readable",
    };
  }
  if (c.state === 'missing')
    return {
      status: 'ok',
      finding: `no journal at ${file} yet (the agent has not run with this data directory)`,
      facts: { file, exists: false },
    };
  if (c.state !== 'ok') {
    return {
      status: 'fail',
      finding: `journal ${c.state}: ${c.problem ?? 'unknown fault'}`,
      remedy: '`terminal-agent journal check` shows what was found; docs/operations.md, "Troubleshooting"',
      facts: { file, state: c.state },
    };
  }
  const r = retentionFacts(file, config.journal.retentionDays);
  const onDisk = (c.sizeBytes ?? 0) + (c.walBytes ?? 0);
  const facts = {
    file,
    sizeBytes: c.sizeBytes ?? 0,
    walBytes: c.walBytes ?? 0,
    freePages: c.freePages ?? null,
    autoVacuum: c.autoVacuum ?? null,
    oldestRowAt: c.oldestRowAt ?? null,
    retentionDays: r.retentionDays,
    nextPruneAt: r.nextPruneAt,
    lastPrune: r.lastPrune,
  };
  const retention = r.retentionDays === 0 ? 'retention off' : `retention ${r.retentionDays} days`;
  const finding = `${megabytes(onDisk)} on disk, oldest row ${c.oldestRowAt ?? 'none'}, ${retention}; ${r.schedule}`;
  if (r.retentionDays > 0 && c.autoVacuum !== undefined && c.autoVacuum !== 'incremental') {
    return {
      status: 'warn',
      finding: `${finding}; auto_vacuum ${c.autoVacuum}: pruned rows' space is reused but not given back`,
      remedy:
        'stop the agent and run `terminal-agent journal compact` once (it needs free space of about twice the journal)',
      facts,
    };
  }
  return { status: 'ok', finding, facts };
}
