import { z } from 'zod';
import { AgentError, ErrorCodes } from '../core/index.js';

/**
 * Transport rules for every platform URL (docs/operations.md, "Configuration keys that
 * matter in production"): bearer tokens, card data and the staff password travel to these
 * hosts, so a URL must be `https://` (a plain listener on the path would read them), and it
 * must not carry credentials (`https://user:pass@host` puts a secret in every log line and
 * error that shows the URL). The refusal names the key, never the URL's secret part.
 */
export function platformUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '')
    return 'must not carry credentials (user:password@): give them in auth.* or the credentials directory';
  if (url.protocol !== 'https:')
    return `must be an https:// URL, not ${url.protocol}// (plain HTTP would let anyone on the path read bearer tokens and card data)`;
  if (url.hostname === '') return 'has no host';
  return undefined;
}

/** The schema of a platform URL key (platform.baseUrl, authUrl, deviceAuthUrl). */
export const platformUrl = z.string().superRefine((value, ctx) => {
  const problem = platformUrlProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const ENDPOINT_KEYS = ['baseUrl', 'authUrl', 'deviceAuthUrl'] as const;
type EndpointKey = (typeof ENDPOINT_KEYS)[number];

/**
 * Throws CONFIG_INVALID naming the first endpoint that breaks the transport rules; `origin`
 * says where the value came from (a config key or an environments file entry).
 */
export function checkEndpoints(
  endpoints: Readonly<Record<EndpointKey, string>>,
  origin: (key: EndpointKey) => string,
): void {
  for (const key of ENDPOINT_KEYS) {
    const problem = platformUrlProblem(endpoints[key]);
    if (problem !== undefined) {
      throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: ${origin(key)}: ${problem}`, {
        details: { key: origin(key) },
      });
    }
  }
}
