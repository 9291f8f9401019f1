import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthService, type AuthSettings } from '../../src/auth/index.js';
import { EventBus } from '../../src/events/bus.js';
import type { AgentEvent } from '../../src/events/types.js';
import { decodeJwtPayload } from '../../src/auth/jwt.js';
import type { HostDispatchers } from '../../src/platform/dispatchers.js';
import { dispatchersOf, grantStats, identityOf, startDemo, type Demo } from '../platform/fixture.js';

const settings: AuthSettings = {
  mode: 'client_credentials',
  refreshRatio: 0.8,
  leewaySeconds: 30,
  backoffBaseMs: 20,
  backoffCapMs: 200,
};

let demo: Demo;
const open: Array<{ auth: AuthService; dispatchers: HostDispatchers }> = [];

beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo?.close();
});
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.auth.stop();
    await o.dispatchers.close();
  }
  demo.platform.faults.clear();
});

function service(over: Partial<AuthSettings> = {}, who: Parameters<typeof identityOf>[0] = 'device', bus?: EventBus): AuthService {
  const identity = identityOf(who);
  const dispatchers = dispatchersOf(identity);
  const auth = new AuthService({
    identity,
    endpoints: { authUrl: demo.apiUrl, deviceAuthUrl: demo.mtlsUrl },
    dispatchers,
    settings: { ...settings, ...over },
    log: demo.log,
    ...(bus ? { bus } : {}),
    random: () => 0.5,
  });
  open.push({ auth, dispatchers });
  return auth;
}

describe('AuthService against the demo platform (client_credentials over mTLS)', () => {
  it('reads the merchant credentials, grants a device-bound token and logs who it runs as', async () => {
    const bus = new EventBus();
    const events: AgentEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const auth = service({}, 'device', bus);
    await auth.start();
    const status = auth.status();
    expect(status.state).toBe('ready');
    expect(status.serialNumber).toBe('TA-0001');
    expect(status.merchants.map((m) => m.clientId)).toEqual(['terminal-app-1001', 'terminal-app-1002']);
    expect(status.merchants[0]?.default).toBe(true);
    expect(status.tokens[0]).toMatchObject({ clientId: 'terminal-app-1001', state: 'valid', hasToken: true, merchantId: 'm-1001', bound: true });
    const token = await auth.tokenFor();
    expect(decodeJwtPayload(token).cnf?.['x5t#S256']).toBe(identityOf('device').thumbprint);
    expect(events.some((e) => e.type === 'auth.status' && (e.data as { state: string }).state === 'valid')).toBe(true);
    const line = demo.sink.records().find((r) => r.msg?.toString().startsWith('authenticated: terminal TA-0001'));
    expect(line).toMatchObject({ serialNumber: 'TA-0001', clientId: 'terminal-app-1001', merchantName: 'Demo Coffee', merchantId: 'm-1001' });
    expect(demo.sink.text()).not.toContain(token);
    expect(demo.sink.text()).not.toContain('demo-secret-1001-change-me');
  });
});
