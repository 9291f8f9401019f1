import { z } from 'zod';
import { decodeJwtPayload } from './jwt.js';

/** Who signed in at the counter, as the page and the local API need it (never the token). */
export interface StaffIdentity {
  username: string;
  /** For the page's header: the `name` claim, else the username. */
  name: string;
  /** The token's `permissions` claim (docs/platform-contract.md, "Tokens"). */
  permissions: string[];
}

// Profile claims of the password grant's token (scope openid profile email); read leniently: a claim of another type is ignored.
const profileSchema = z.looseObject({
  preferred_username: z.string().optional().catch(undefined),
  name: z.string().optional().catch(undefined),
  permissions: z.array(z.string()).optional().catch(undefined),
});

/** The clerk's identity from the staff token's profile claims; `username` is what was typed when the token names none. */
export function staffIdentityOf(token: string, typedUsername: string): StaffIdentity {
  const claims = profileSchema.parse(decodeJwtPayload(token));
  const username = claims.preferred_username ?? typedUsername;
  const name = claims.name !== undefined && claims.name.trim() !== '' ? claims.name : username;
  return { username, name, permissions: claims.permissions ?? [] };
}
