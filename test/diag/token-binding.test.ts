import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, runDiagnostics, type CheckResult, type DiagReport } from '../../src/diag/index.js';
import type { DemoPlatform } from '../../src/sim/platform/server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { closedPort, demoPlatform, diagConfig } from './diag-setup.js';

let platform: DemoPlatform;
let tmp: { dir: string; cleanup: () => void };
let noAgentPort: number;

beforeAll(async () => {
  platform = await demoPlatform();
  tmp = tempDir('terminal-agent-diag-token-');
  noAgentPort = await closedPort();
});
afterAll(async () => {
  await platform?.stop();
  tmp?.cleanup();
});

function tokenCheck(r: DiagReport): CheckResult {
  const c = r.checks.find((x) => x.id === 'token');
  if (c === undefined) throw new Error('no token check');
  return c;
}

async function diag(extra: Parameters<typeof diagConfig>[3] = {}): Promise<DiagReport> {
  const loaded = diagConfig(tmp.dir, platform.urls, noAgentPort, extra);
  return (await runDiagnostics({ loadConfig: () => loaded, checkTimeoutMs: 8_000 })).report;
}

describe('terminal-agent diag: a token without cnf (docs/platform-contract.md, "Tokens")', () => {
  it.each([
    ['client_credentials', {}],
    ['password', { auth: { mode: 'password' as const, username: 'staff1', password: 'demo-staff-password' } }],
  ])('%s: warns that the token is not certificate-bound, fails nothing', async (_flow, extra) => {
    // The strict profile issues machine-to-machine and password tokens without cnf.
    platform.context.profile.set('strict');
    try {
      const r = await diag(extra);
      const token = tokenCheck(r);
      expect(token).toMatchObject({ status: 'warn', facts: { bound: false, cnfMatches: false } });
      expect(token.finding).toMatch(/not certificate-bound \(no cnf\)/);
      expect(token.remedy).toBeDefined();
      expect(r.checks.find((c) => c.id === 'platform')?.status).toBe('ok');
      expect(r.ok).toBe(true);
      expect(formatReport(r)).toMatch(/WARN\s+token\s.*not certificate-bound/);
    } finally {
      platform.context.profile.set('standard');
    }
  });

  it('standard: the token carries cnf for this certificate and the check is ok', async () => {
    const token = tokenCheck(await diag());
    expect(token).toMatchObject({ status: 'ok', facts: { bound: true, cnfMatches: true } });
  });
});
