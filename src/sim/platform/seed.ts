import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AgentError, ErrorCodes } from '../../core/index.js';

/** Merchants, stores, terminals and users the demo platform starts with (config/demo-seed.json). */
export const seedSchema = z.strictObject({
  userDomain: z.string(),
  realm: z.string(),
  signingKeyHex: z.string().regex(/^[0-9a-f]{32}$/, 'expected a 128-bit key as 32 hex digits'),
  tenants: z.array(z.strictObject({ tenantId: z.string() })),
  aggregators: z.array(
    z.strictObject({ merchantAggregatorId: z.string(), tenantId: z.string(), approvalCode: z.string().nullable() }),
  ),
  merchants: z.array(
    z.strictObject({
      merchantId: z.string(),
      merchantName: z.string(),
      merchantAggregatorId: z.string(),
      acquirerName: z.string(),
      acquirerId: z.string(),
      partialCancel: z.boolean(),
      captureMode: z.enum(['immediate', 'deferred']),
      clientId: z.string(),
      clientSecret: z.string(),
    }),
  ),
  stores: z.array(z.strictObject({ storeId: z.string(), name: z.string(), merchantIds: z.array(z.string()) })),
  terminals: z.array(
    z.strictObject({
      serialNumber: z.string(),
      storeId: z.string(),
      logicalDeviceId: z.string(),
      deviceType: z.string(),
      merchantIds: z.array(z.string()),
    }),
  ),
  users: z.array(
    z.strictObject({
      username: z.string(),
      password: z.string(),
      merchantId: z.string(),
      name: z.string(),
      givenName: z.string(),
      familyName: z.string(),
      email: z.string(),
      phone: z.string(),
      /** The user's permissions claim; default: all of the merchant's. */
      permissions: z.array(z.string()).optional(),
      /** The user's profile claims `locale` ("de-DE"), `zoneinfo` (IANA) and `datetimeformat`; default: the realm's (claims.ts). */
      locale: z.string().optional(),
      zoneinfo: z.string().optional(),
      datetimeformat: z.string().optional(),
    }),
  ),
  applications: z.array(
    z.strictObject({
      clientId: z.string(),
      clientSecret: z.string().nullable(),
      redirectUris: z.array(z.string()),
      merchantId: z.string().nullable(),
      powered: z.boolean().optional(),
    }),
  ),
});

export type Seed = z.infer<typeof seedSchema>;
export type SeedMerchant = Seed['merchants'][number];
export type SeedTerminal = Seed['terminals'][number];

export function loadSeed(file: string): Seed {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `demo platform: cannot read seed file ${file}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const parsed = seedSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `demo platform: seed file ${file}: ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
