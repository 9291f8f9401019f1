import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../../core/index.js';
import { openQueueReadOnly } from '../../offline/index.js';
import { JOURNAL_FILE, formatAmount } from '../../payments/index.js';
import type { DiagState } from '../state.js';
import type { OfflineSummary, Outcome } from '../types.js';

function money(minor: number, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return `${minor} ${currency}`;
  }
}

/**
 * Check 8: the offline queue, read from the journal database opened read-only
 * (read-only CLI commands open the database: docs/operations.md, "CLI commands"), so it
 * works while the agent runs and changes nothing.
 */
export function checkOffline(state: DiagState): Outcome {
  const config = state.config;
  if (config === undefined) return { status: 'skip', finding: 'needs the configuration (see config)' };
  const file = join(config.dataDir, JOURNAL_FILE);
  if (!existsSync(file)) {
    state.collected.offline = null;
    return {
      status: 'ok',
      finding: `no journal at ${file} yet: nothing queued (the agent has not run with this data directory)`,
      facts: { file, exists: false },
    };
  }
  let ro;
  try {
    ro = openQueueReadOnly(config.dataDir);
  } catch (err) {
    state.collected.offline = { error: describeError(err) };
    return {
      status: 'fail',
      finding: describeError(err),
      remedy: "run diag as the agent's user; check that the data directory's files are readable",
    };
  }
  try {
    if (!ro.queue.exists()) {
      state.collected.offline = null;
      return {
        status: 'ok',
        finding: 'no offline queue in the journal yet: nothing queued',
        facts: { file, exists: false },
      };
    }
    const stats = ro.queue.stats();
    const states = ro.queue.stateCounts();
    const ageMs = stats.oldest === undefined ? null : state.now() - stats.oldest.storedAtMs;
    const oc = config.offline;
    const summary: OfflineSummary = {
      file,
      count: stats.count,
      maxCount: oc.maxCount,
      totals: stats.totals,
      oldestClientTransactionId: stats.oldest?.clientTransactionId ?? null,
      oldestStoredAt: stats.oldest === undefined ? null : new Date(stats.oldest.storedAtMs).toISOString(),
      oldestAgeHours: ageMs === null ? null : Math.round((ageMs / 3_600_000) * 10) / 10,
      maxAgeHours: oc.maxAgeHours,
      needsAttention: states.needs_attention,
      states,
    };
    state.collected.offline = summary;
    const totals = Object.entries(stats.totals).map(([c, v]) => money(v, c));
    const head =
      stats.count === 0
        ? 'queue empty'
        : `${stats.count}/${oc.maxCount} stored (${totals.join(', ')}), oldest ${summary.oldestAgeHours} h (limit ${oc.maxAgeHours} h)`;
    const attention = states.needs_attention > 0 ? `; ${states.needs_attention} need attention` : '';
    const facts = { ...summary };
    if (ageMs !== null && ageMs >= oc.maxAgeHours * 3_600_000) {
      return {
        status: 'fail',
        finding: `${head}${attention}: the oldest sale is past the offline age limit`,
        remedy:
          'bring the terminal online so the uploader sends the queue now; contact the acquirer about sales past the limit',
        facts,
      };
    }
    if (states.needs_attention > 0) {
      return {
        status: 'warn',
        finding: `${head}${attention}`,
        remedy:
          'the platform refused these uploads repeatedly: review them with the acquirer (GET /api/v1/offline on the local API lists the queue)',
        facts,
      };
    }
    if (ageMs !== null && ageMs >= (oc.maxAgeHours - oc.warnBeforeHours) * 3_600_000) {
      return {
        status: 'warn',
        finding: `${head}: close to the offline age limit`,
        remedy: 'bring the terminal online soon so the queue is uploaded',
        facts,
      };
    }
    if (stats.count >= oc.maxCount) {
      return {
        status: 'warn',
        finding: `${head}: the offline count limit is reached, further offline sales are refused`,
        remedy: 'bring the terminal online so the queue is uploaded',
        facts,
      };
    }
    return { status: 'ok', finding: head, facts };
  } catch (err) {
    state.collected.offline = { error: describeError(err) };
    return {
      status: 'warn',
      finding: `the offline queue cannot be read: ${describeError(err)}`,
      remedy: 'the journal may come from another agent version: run diag of the same version as the agent',
    };
  } finally {
    ro.close();
  }
}
