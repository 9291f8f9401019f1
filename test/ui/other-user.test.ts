import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPageDirs } from '../../src/ui/local/static-page.js';
import { startApi, type Started } from '../helpers/local-api.js';
import { localTokenPath } from '../../src/ui/shared/local-token.js';
import { FakeStaff } from './staff.js';

const root = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * What another local user gets (docs/architecture.md, "Invariants" 5): a process running as
 * `nobody` reads the counter page, tries the token file and the API. Needs root to start a
 * process as another user; skipped otherwise.
 */
describe.skipIf(!root)('another local user (nobody)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApi({ pageDirs: defaultPageDirs(), extra: { staff: new FakeStaff() } });
  });
  afterAll(() => s?.close());

  function asNobody(script: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        uid: NOBODY,
        gid: NOBODY,
        env: {},
        cwd: '/',
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
  }

  it('gets no usable credential: the page carries none, the token file is closed to it, the API refuses it', async () => {
    const script = `
      import { readFileSync } from 'node:fs';
      const base = ${JSON.stringify(s.url)};
      const result = { uid: process.getuid() };
      const page = await fetch(base + '/');
      result.page = await page.text();
      result.pageHeaders = JSON.stringify([...page.headers]);
      for (const a of ['app.js', 'api.js', 'sign-in.js', 'session.js', 'styles.css']) {
        const r = await fetch(base + '/assets/' + a);
        result.page += await r.text();
      }
      try { result.file = readFileSync(${JSON.stringify(localTokenPath(s.dataDir))}, 'utf8'); } catch (e) { result.fileError = e.code; }
      const api = await fetch(base + '/api/v1/transactions/x/refund', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      result.apiStatus = api.status;
      result.apiBody = await api.text();
      console.log(JSON.stringify(result));
    `;
    const out = await asNobody(script);
    const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(r.uid).toBe(NOBODY);
    expect(r.fileError).toBe('EACCES');
    expect(r.file).toBeUndefined();
    expect(String(r.page)).toContain('sign-in');
    expect(String(r.page)).not.toContain(s.token);
    expect(String(r.pageHeaders)).not.toContain(s.token);
    expect(String(r.pageHeaders)).not.toContain('set-cookie');
    expect(r.apiStatus).toBe(401);
    expect(String(r.apiBody)).not.toContain(s.token);
    expect(s.payments.calls).toEqual([]);
  });
});
