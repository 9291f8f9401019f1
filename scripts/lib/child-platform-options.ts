import { z } from 'zod';

/**
 * What every child process that runs the agent's payments against a demo platform is given
 * (chaos children, the crash test's child): where the platform is, the device identity,
 * and its own data directory. Each child adds its own options to these.
 */
export const childPlatformFields = {
  apiUrl: z.string(),
  mtlsUrl: z.string(),
  certFile: z.string(),
  keyFile: z.string(),
  caFile: z.string(),
  dataDir: z.string(),
};
