export { AuthService, type AuthIdentity, type AuthServiceOptions, type AuthSettings, type AuthStatus, type AuthServiceState, type MerchantStatus } from './auth-service.js';
export { TokenManager, isTransientAuthError, type TokenManagerOptions, type TokenSource, type TokenState, type TokenStatus, type TokenCounts } from './token-manager.js';
export { TokenEndpoint, PASSWORD_SCOPE, type TokenEndpointOptions, type CustomTokenDevice } from './token-endpoint.js';
export { ClientCredentialsSource, PasswordSource, CustomTokenSource, type MerchantSlot, type PasswordLogin, type CustomTokenOptions } from './sources.js';
export {
  fetchMerchantCredentials,
  selectMerchant,
  findMerchant,
  summary as merchantSummary,
  type MerchantCredentials,
  type MerchantSummary,
  type FetchCredentialsOptions,
} from './merchant-credentials.js';
export { checkAccessToken, decodeJwtPayload, type AccessTokenInfo, type ClaimExpectations, type RawClaims } from './jwt.js';
export { ClockSkewMeter, type ClockSkew } from './clock-skew.js';
export { tokenResponseSchema, type TokenResponse, type GrantOutcome, type ResponseTiming } from './token-response.js';
