export { AuthService, type AuthServiceOptions } from './auth-service.js';
export type { AuthSettings } from './auth-settings.js';
export {
  overallState,
  type AuthStatus,
  type AuthServiceState,
  type AuthPhase,
  type MerchantStatus,
} from './auth-status.js';
export { checkCertificateValidity, type AuthIdentity } from './certificate-check.js';
export { CredentialsDirectory, type CredentialsDirectoryOptions } from './credentials-directory.js';
export { MerchantChoice, type MerchantChoiceOptions } from './merchant-choice.js';
export {
  TokenManager,
  isTransientAuthError,
  type TokenManagerOptions,
  type TokenSource,
  type TokenState,
  type TokenStatus,
  type TokenCounts,
} from './token-manager.js';
export { TokenEndpoint, PASSWORD_SCOPE, type TokenEndpointOptions, type CustomTokenDevice } from './token-endpoint.js';
export {
  ClientCredentialsSource,
  PasswordSource,
  CustomTokenSource,
  type MerchantSlot,
  type PasswordLogin,
  type CustomTokenOptions,
} from './sources.js';
export {
  fetchMerchantCredentials,
  selectMerchant,
  findMerchant,
  summary as merchantSummary,
  type MerchantCredentials,
  type MerchantSummary,
  type FetchCredentialsOptions,
} from './merchant-credentials.js';
export {
  checkAccessToken,
  decodeJwtPayload,
  type AccessTokenInfo,
  type ClaimExpectations,
  type RawClaims,
} from './jwt.js';
export { ClockSkewMeter, type ClockSkew } from './clock-skew.js';
export { tokenResponseSchema, type TokenResponse, type GrantOutcome, type ResponseTiming } from './token-response.js';
export {
  MerchantSignIn,
  MERCHANT_SCOPE,
  signInRefusalOf,
  type MerchantSignInOptions,
  type SignInCallback,
  type SignInRefusal,
} from './merchant-sign-in.js';
export { SignInStates } from './sign-in-states.js';
export type { CustomTokenSettings } from './auth-settings.js';
export { StaffSignIn, type StaffSignInOptions, type StaffSignInResult } from './staff-sign-in.js';
export {
  SignInThrottle,
  DEFAULT_SIGN_IN_THROTTLE,
  type SignInThrottlePolicy,
  type SignInAttempt,
} from './staff-throttle.js';
export { StaffVerifier, STAFF_VERIFIER_FILE, SCRYPT_PARAMS, type StaffVerifierOptions } from './staff-verifier.js';
export { staffIdentityOf, type StaffIdentity } from './staff-claims.js';
