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
  /** The token's datetimeformat claim (how the page writes a full date and time). */
  dateTimeFormat?: string;
}

/**
 * Checks a clerk's username and password (docs/counter-page.md, "Local API and counter
 * page"): the agent gives the platform's password grant with the local verifier as fallback
 * (src/auth/staff-sign-in.ts). Rejects with API_SIGN_IN_FAILED when refused.
 */
export interface StaffAuthenticator {
  /** `client`: the caller's address, for the failed sign-in throttle (API_SIGN_IN_THROTTLED while it makes the caller wait). */
  signIn(username: string, password: string, client?: string): Promise<StaffView>;
}

/** What a callback of the platform sign-in carries (the realm's redirect: docs/platform-contract.md, "Tokens", custom-token flow). */
export interface PlatformSignInCallback {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
}

/**
 * The merchant's sign-in with the platform for auth.mode custom_token (src/auth/merchant-sign-in.ts):
 * the realm's authorization URL for a new sign-in, and its callback, which ends in who
 * signed in (never a token). A refused callback rejects with API_SIGN_IN_FAILED whose
 * details name the reason.
 */
export interface PlatformSignInSource {
  begin(redirectUri: string): string;
  complete(callback: PlatformSignInCallback): Promise<StaffView>;
}
