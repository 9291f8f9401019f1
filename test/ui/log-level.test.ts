import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/index.js';
import { AuditLog, JOURNAL_FILE } from '../../src/payments/index.js';
import type { RunningAgent } from '../../src/agent.js';
import { runCli } from '../helpers/cli.js';
import { call } from '../helpers/http-client.js';
import type { LogSink } from '../helpers/log-sink.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { DEMO_STAFF, DEMO_SUPERVISOR, DEMO_TRAINEE, signInCookie } from './staff.js';

/**
 * The log level changes while the agent runs (docs/operations.md, "Log level"): PUT
 * /api/v1/log-level with the per-install token, and `terminal-agent log-level LEVEL`, reach
 * the components' child loggers made at start, without a restart.
 */
let t: TestAgent;
let agent: RunningAgent;
let sink: LogSink;
let flags: string[];
let cleanup: () => void;
let dataDir: string;

beforeAll(async () => {
  const data = tempDir('terminal-agent-loglevel-');
  cleanup = data.cleanup;
  dataDir = data.dir;
  t = await startTestAgent({ flags: { dataDir: data.dir }, level: 'debug' });
  ({ agent, sink } = t);
  flags = ['--data-dir', data.dir, '--api-port', new URL(agent.url).port];
});
afterAll(async () => {
  await t?.stop();
  cleanup?.();
});

const auth = (): Record<string, string> => ({ authorization: `Bearer ${agent.localToken}` });

/** A request the local API's child logger answers with a debug line (a 404 is logged at debug). */
async function debugLinesOfA404(): Promise<number> {
  const before = sink.records().filter((r) => r.module === 'local-api' && r.level === 20).length;
  const r = await call(agent.url, 'GET', '/api/v1/no-such-thing', { headers: auth() });
  expect(r.status).toBe(404);
  return sink.records().filter((r) => r.module === 'local-api' && r.level === 20).length - before;
}

describe('log level at run time', () => {
  it('PUT /api/v1/log-level needs the token, refuses an unknown level, and silences debug lines at once', async () => {
    expect((await call(agent.url, 'PUT', '/api/v1/log-level', { body: { level: 'warn' } })).status).toBe(401);
    const bad = await call(agent.url, 'PUT', '/api/v1/log-level', { headers: auth(), body: { level: 'verbose' } });
    expect(bad.status).toBe(400);
    expect(await debugLinesOfA404()).toBe(1);

    const put = await call(agent.url, 'PUT', '/api/v1/log-level', { headers: auth(), body: { level: 'warn' } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ level: 'warn', previous: 'debug' });
    expect(await debugLinesOfA404()).toBe(0);
    // One `level` key per line, pino's own: the new level goes under logLevel (a parser reading
    // JSON takes the last of two equal keys, and read "warn" where pino wrote 40).
    const changed = sink.records().find((r) => r.msg === 'log level changed through the local API');
    expect(changed).toMatchObject({ level: 40, logLevel: 'warn', previousLogLevel: 'debug' });
    expect(
      sink
        .text()
        .split('\n')
        .filter((l) => l.includes('log level changed'))
        .every((l) => l.match(/"level":/g)?.length === 1),
    ).toBe(true);
    expect((await call(agent.url, 'GET', '/api/v1/log-level', { headers: auth() })).json).toEqual({ level: 'warn' });
  });

  it('terminal-agent log-level LEVEL changes it, and without LEVEL shows it', async () => {
    const set = await runCli([...flags, 'log-level', 'debug']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('log level debug (was warn)\n');
    expect(await debugLinesOfA404()).toBe(1);

    const shown = await runCli([...flags, 'log-level', '--json']);
    expect(JSON.parse(shown.stdout)).toEqual({ level: 'debug' });

    const wrong = await runCli([...flags, 'log-level', 'loud']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/unknown log level loud: one of fatal, error, warn, info, debug, trace, silent/);
  });

  it('from a staff session it needs api.permissions.logLevel: the trainee and the clerk are refused with it named, the supervisor may', async () => {
    for (const who of [DEMO_TRAINEE, DEMO_STAFF]) {
      const refused = await call(agent.url, 'PUT', '/api/v1/log-level', {
        headers: { cookie: await signInCookie(agent.url, who) },
        body: { level: 'silent' },
      });
      expect(refused.status).toBe(403);
      expect(refused.json.error.message).toMatch(
        /may not change the log level: the permission terminal:log-level is needed/,
      );
    }
    expect((await call(agent.url, 'GET', '/api/v1/log-level', { headers: auth() })).json).not.toEqual({
      level: 'silent',
    });
    const allowed = await call(agent.url, 'PUT', '/api/v1/log-level', {
      headers: { cookie: await signInCookie(agent.url, DEMO_SUPERVISOR) },
      body: { level: 'debug' },
    });
    expect(allowed.status, allowed.text).toBe(200);
    expect(
      sink
        .records()
        .filter((r) => r.msg === 'log level changed through the local API')
        .at(-1),
    ).toMatchObject({ logLevel: 'debug', by: DEMO_SUPERVISOR.username });
  });

  it("a change to silent is written to the journal's audit rows and logged before it takes effect, naming who made it", async () => {
    const put = await call(agent.url, 'PUT', '/api/v1/log-level', {
      headers: { ...auth(), 'x-request-id': 'support-42' },
      body: { level: 'silent' },
    });
    expect(put.status).toBe(200);
    expect(
      sink
        .records()
        .filter((r) => r.msg === 'log level changed through the local API')
        .at(-1),
    ).toMatchObject({ level: 40, logLevel: 'silent', by: 'local-api' });
    const db = new Database(join(dataDir, JOURNAL_FILE), { readonly: true });
    try {
      expect(new AuditLog(db, systemClock()).latest(1)).toEqual([
        {
          at: expect.any(String),
          action: 'log-level',
          by: 'local-api',
          detail: expect.stringMatching(/-> silent$/),
          requestId: 'support-42',
        },
      ]);
    } finally {
      db.close();
    }
    await call(agent.url, 'PUT', '/api/v1/log-level', { headers: auth(), body: { level: 'info' } });
  });
});
