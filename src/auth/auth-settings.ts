/** The `auth` section of the configuration, as device authentication needs it. */
export interface AuthSettings {
  mode: 'client_credentials' | 'password';
  /** clientId or merchant name of the default merchant when the terminal serves several. */
  merchantId?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** The platform's designated application for the password grant. */
  poweredClientId?: string | undefined;
  refreshRatio: number;
  leewaySeconds: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Between attempts after a failure retrying soon will not fix; default backoffCapMs. */
  slowRetryMs?: number;
}
