import type { Seed } from '../seed.js';
import type { Grant } from './grant.js';

// The realm's profile defaults (as the platform gives them: zoneinfo, locale "ll-CC", ISO 8601-style format),
// for a terminal's service account and a seeded user that names none of its own (config/demo-seed.json).
const REALM_ZONEINFO = 'Europe/Berlin';
const REALM_LOCALE = 'en-GB';
const REALM_DATETIME_FORMAT = 'YYYY-MM-DDTHH:mm:ssZ';

/** What a merchant's users and terminals may do with the payment API. */
const MERCHANT_PERMISSIONS = [
  'payment:process',
  'payment:capture',
  'payment:cancel',
  'payment:refund',
  'payment:status',
];

const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The claims each granted scope adds to an access token, as the platform issues them. */
export function scopeClaims(seed: Seed, grant: Grant, scope: readonly string[]): Record<string, unknown> {
  const s = grant.subject;
  const claims: Record<string, unknown> = {};
  if (scope.includes('profile')) {
    const merchant = seed.merchants.find((m) => m.merchantId === s.entityId);
    Object.assign(
      claims,
      defined({
        user_domain: seed.userDomain,
        groups: merchant ? [`/merchants/${merchant.merchantId}/${s.kind === 'user' ? 'staff' : 'terminals'}`] : [],
        entityId: s.entityId,
        um_scope: merchant ? [{ entityId: merchant.merchantId, entityType: 'merchant' }] : [],
        permissions: merchant ? (s.permissions ?? MERCHANT_PERMISSIONS) : [],
        name: s.name,
        given_name: s.givenName,
        family_name: s.familyName,
        preferred_username: s.preferredUsername,
        zoneinfo: s.zoneinfo ?? REALM_ZONEINFO,
        locale: s.locale ?? REALM_LOCALE,
        datetimeformat: s.datetimeformat ?? REALM_DATETIME_FORMAT,
      }),
    );
  }
  // No token is issued for an unverified address, so a present email is a verified one.
  if (scope.includes('email') && s.email !== undefined) Object.assign(claims, { email: s.email, email_verified: true });
  if (scope.includes('phone') && s.phone !== undefined)
    Object.assign(claims, { phone_number: s.phone, phone_number_verified: true });
  if (scope.includes('address') && s.kind === 'user') {
    const store = seed.stores.find((st) => s.entityId !== undefined && st.merchantIds.includes(s.entityId));
    if (store !== undefined) claims.address = { formatted: store.name, street_address: store.name };
  }
  if (scope.includes('auth')) {
    Object.assign(
      claims,
      defined({
        device_type: grant.device.deviceType,
        device_id: grant.device.deviceId,
        method: grant.device.method,
        '2fa': grant.device.twoFa,
        physical_device_id: grant.device.physicalDeviceId,
      }),
    );
  }
  return claims;
}

/** Profile claims a subject may leave unfilled (a terminal's service account has no name). */
const PROFILE_OPTIONAL = ['name', 'given_name', 'family_name', 'preferred_username'];

/**
 * The strict profile writes the optional claims a token does not fill as `null` instead of
 * leaving them out (docs/demo-platform.md, "Demo platform"): the profile claims the subject
 * has none of, `device_id` without the `auth` scope and `cnf` on a token that is not bound.
 */
export function unfilledClaimsAsNull(scope: readonly string[], claims: Record<string, unknown>): Record<string, null> {
  const nulls: Record<string, null> = {};
  if (scope.includes('profile')) for (const c of PROFILE_OPTIONAL) if (claims[c] === undefined) nulls[c] = null;
  if (!scope.includes('auth')) nulls.device_id = null;
  if (claims.cnf === undefined) nulls.cnf = null;
  return nulls;
}
