/** Who signed in at the counter, as the local API keeps it in a session (never a token or password). */
export interface StaffView {
  username: string;
  name: string;
  permissions: readonly string[];
  /** Signed in against the local verifier while the platform was unreachable. */
  offline: boolean;
  /** The token's locale claim, canonical (the page's language and formats). */
  locale?: string;
  /** The token's zoneinfo claim (the zone the page shows times in). */
  zoneinfo?: string;
}

/**
 * Checks a clerk's username and password (docs/architecture.md, "Local API and counter
 * page"): the agent gives the platform's password grant with the local verifier as fallback
 * (src/auth/staff-sign-in.ts). Rejects with API_SIGN_IN_FAILED when refused.
 */
export interface StaffAuthenticator {
  signIn(username: string, password: string): Promise<StaffView>;
}
