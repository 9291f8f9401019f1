/** The `auth` section of the configuration, as device authentication needs it. */
export interface AuthSettings {
  mode: 'client_credentials' | 'password' | 'custom_token';
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
  /** custom_token mode (demo only; docs/platform-contract.md, "Tokens"). */
  customToken?: CustomTokenSettings | undefined;
  /** Between attempts after a failure retrying soon will not fix; default backoffCapMs. */
  slowRetryMs?: number;
}

/** auth.customToken: the realm sign-in of the merchant and the custom-token call. */
export interface CustomTokenSettings {
  realm: string;
  /** The realm's application the merchant signs in to. */
  clientId: string;
  clientSecret?: string | undefined;
  deviceModel: string;
  /** Default: the device certificate's serial number. */
  deviceId?: string | undefined;
  method: 'api' | 'device_flow';
  /** How long a started sign-in's state stays valid. */
  signInMs: number;
}
