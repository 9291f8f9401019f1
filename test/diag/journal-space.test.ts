import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runDiagnostics, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import { Journal } from '../../src/payments/journal/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort, diagConfig } from './diag-setup.js';

/** diag's journal check (docs/operations.md, "CLI commands"): size on disk, oldest row, retention, next prune. */

function check(r: DiagReport, id: string): CheckResult {
  const c = r.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id}`);
  return c;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

describe('diag journal size and retention', () => {
  it("reports the size on disk, the oldest row, the retention setting and the running agent's next prune", async () => {
    const t = tempDir('terminal-agent-diag-journal-');
    cleanups.push(t.cleanup);
    const made = Date.UTC(2026, 2, 3, 4, 5, 6);
    const journal = new Journal({ dataDir: t.dir, clock: { wall: () => made } });
    journal.insert({
      clientTransactionId: 'first',
      kind: 'sale',
      amount: 100,
      currency: 'EUR',
      state: 'approved',
      clientDateTime: new Date(made).toISOString(),
    });
    journal.close();
    const urls = { api: 'https://127.0.0.1:1', mtls: 'https://127.0.0.1:1' };
    const loaded = diagConfig(t.dir, urls, await closedPort());

    const idle = check((await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 5_000 })).report, 'journal');
    expect(idle.status).toBe('ok');
    expect(idle.finding).toMatch(
      /^\d+\.\d MB on disk, oldest row 2026-03-03T04:05:06\.000Z, retention 400 days; no agent running on this journal/,
    );
    expect(idle.facts).toMatchObject({
      oldestRowAt: '2026-03-03T04:05:06.000Z',
      retentionDays: 400,
      nextPruneAt: null,
      autoVacuum: 'incremental',
    });
    expect((idle.facts as { sizeBytes: number }).sizeBytes).toBeGreaterThan(0);

    // pid 1 always lives: stands for the running agent that wrote its schedule.
    writeFileSync(
      `${journal.file}.prune`,
      JSON.stringify({ pid: 1, retentionDays: 400, nextPruneAt: '2026-03-04T00:00:00.000Z', lastPrune: null }),
    );
    const running = check(
      (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 5_000 })).report,
      'journal',
    );
    expect(running.finding).toContain('next prune at 2026-03-04T00:00:00.000Z');
    expect(running.facts).toMatchObject({ nextPruneAt: '2026-03-04T00:00:00.000Z' });
  });
});
