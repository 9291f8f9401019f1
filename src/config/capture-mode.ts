import type { Config } from './schema.js';

export type CaptureMode = 'immediate' | 'deferred';
export type CaptureModeSetting = Config['payments']['captureMode'];

/**
 * The capture mode of a merchant (docs/payments.md, "Capture, cancel, refund";
 * docs/operations.md, payments.captureMode): `names` are every name the terminal knows the
 * merchant by (clientId, merchant name, platform merchant id), so the map may use any of
 * them. A merchant the map does not name takes the default.
 */
export function captureModeFor(setting: CaptureModeSetting, names: readonly string[]): CaptureMode {
  if (typeof setting === 'string') return setting;
  for (const name of names) {
    const mode = Object.hasOwn(setting.merchants, name) ? setting.merchants[name] : undefined;
    if (mode !== undefined) return mode;
  }
  return setting.default;
}

/** The default capture mode (the whole setting when it is one mode), as the status call reports it. */
export function defaultCaptureMode(setting: CaptureModeSetting): CaptureMode {
  return typeof setting === 'string' ? setting : setting.default;
}
