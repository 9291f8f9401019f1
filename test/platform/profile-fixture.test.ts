import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, startDemo, testSimProfile, type Demo } from '../helpers/demo-platform.js';

let demo: Demo;
beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await demo?.close();
});

describe('the demo platform fixture', () => {
  it('starts the platform in the profile TEST_SIM_PROFILE names, so the strict pass really runs strict', async () => {
    const body = (await control(demo, 'GET', '/sim/control/profile')) as { profile: string };
    expect(body.profile).toBe(testSimProfile());
    expect(body.profile).toBe(process.env.TEST_SIM_PROFILE === 'strict' ? 'strict' : 'standard');
  });
});
