import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http-client.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { DEMO_STAFF, DEMO_TRAINEE } from './staff.js';

/**
 * `POST /session` on the whole agent (real StaffSignIn, embedded demo platform): repeated
 * failed sign-ins are answered 429 with the wait in words and in Retry-After
 * (docs/operations.md, "Staff accounts", failed sign-ins); another clerk is not locked out.
 */
describe('failed sign-ins on the local API', () => {
  let running: TestAgent;
  beforeAll(async () => {
    running = await startTestAgent();
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('answers 401 five times, then 429 "too many failed sign-ins, try again in N s" with Retry-After, even for the right password', async () => {
    const url = running.agent.url;
    for (let i = 0; i < 5; i++) {
      const r = await call(url, 'POST', '/session', {
        body: { username: DEMO_TRAINEE.username, password: `not-it-${i}` },
      });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('API_SIGN_IN_FAILED');
    }
    const wrong = await call(url, 'POST', '/session', {
      body: { username: DEMO_TRAINEE.username, password: 'not-it' },
    });
    expect(wrong.status).toBe(429);
    expect(wrong.json.error).toEqual({
      code: 'API_SIGN_IN_THROTTLED',
      message: expect.stringMatching(/^too many failed sign-ins, try again in [1-5] s$/),
    });
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const right = await call(url, 'POST', '/session', {
      body: { username: DEMO_TRAINEE.username, password: DEMO_TRAINEE.password },
    });
    expect(right.status).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    // Another clerk at the same terminal still signs in (the address allows more failures).
    const other = await call(url, 'POST', '/session', {
      body: { username: DEMO_STAFF.username, password: DEMO_STAFF.password },
    });
    expect(other.status).toBe(200);
    expect(running.sink.text()).not.toContain('not-it');
  });
});
