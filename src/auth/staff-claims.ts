import { z } from 'zod';
import { decodeJwtPayload } from './jwt.js';

/** Who signed in at the counter, as the page and the local API need it (never the token). */
export interface StaffIdentity {
  username: string;
  /** For the page's header: the `name` claim, else the username. */
  name: string;
  /** The token's `permissions` claim (docs/platform-contract.md, "Tokens"). */
  permissions: string[];
  /** The `locale` claim ("de-DE"), canonical; absent when missing or not a language tag. */
  locale?: string;
  /** The `zoneinfo` claim ("Europe/Berlin"); absent when missing or not a zone this runtime knows. */
  zoneinfo?: string;
  /** The `datetimeformat` claim ("YYYY-MM-DDTHH:mm:ssZ"): how the page writes a full date and time; absent when missing or unusable. */
  dateTimeFormat?: string;
}

/** A language tag in canonical form, or undefined ("de_DE" as the platform may write it is read as de-DE). */
export function canonicalLocale(tag: string | undefined): string | undefined {
  if (tag === undefined) return undefined;
  try {
    return Intl.getCanonicalLocales(tag.trim().replace(/_/g, '-'))[0];
  } catch {
    return undefined;
  }
}

/** An IANA time zone name this runtime knows, or undefined. */
export function knownTimeZone(zone: string | undefined): string | undefined {
  if (zone === undefined || zone.trim() === '') return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * A `datetimeformat` claim the page can use: a short pattern naming at least one of the tokens
 * the page writes (YYYY, MM, DD, HH, mm, ss; Z for the offset), else undefined (the page then
 * writes dates and times per locale). Read leniently: surrounding blanks are dropped.
 */
export function usableDateTimeFormat(pattern: string | undefined): string | undefined {
  const p = pattern?.trim();
  return p !== undefined && p.length <= 64 && /YYYY|MM|DD|HH|mm|ss/.test(p) ? p : undefined;
}

// Profile claims of the password grant's token (scope openid profile email); read leniently: a claim of another type is ignored.
const profileSchema = z.looseObject({
  preferred_username: z.string().optional().catch(undefined),
  name: z.string().optional().catch(undefined),
  permissions: z.array(z.string()).optional().catch(undefined),
  locale: z.string().optional().catch(undefined),
  zoneinfo: z.string().optional().catch(undefined),
  datetimeformat: z.string().optional().catch(undefined),
});

/** The clerk's identity from the staff token's profile claims (name, permissions, locale, zoneinfo, datetimeformat: the page's language, time zone and full date-time pattern); `username` is what was typed when the token names none. */
export function staffIdentityOf(token: string, typedUsername: string): StaffIdentity {
  const claims = profileSchema.parse(decodeJwtPayload(token));
  const username = claims.preferred_username ?? typedUsername;
  const name = claims.name !== undefined && claims.name.trim() !== '' ? claims.name : username;
  const locale = canonicalLocale(claims.locale);
  const zoneinfo = knownTimeZone(claims.zoneinfo);
  const dateTimeFormat = usableDateTimeFormat(claims.datetimeformat);
  return {
    username,
    name,
    permissions: claims.permissions ?? [],
    ...(locale !== undefined ? { locale } : {}),
    ...(zoneinfo !== undefined ? { zoneinfo } : {}),
    ...(dateTimeFormat !== undefined ? { dateTimeFormat } : {}),
  };
}
