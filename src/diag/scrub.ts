import { SECRET_KEYS } from '../core/index.js';

export const SCRUBBED = '[redacted]';

/** Keys whose values never leave the terminal, whatever their nesting (case-insensitive). */
const SECRET_KEY_SET = new Set(
  [...SECRET_KEYS, 'signingKey', 'signingKeyHex', 'keyPem', 'caKey', 'code_verifier', 'pin'].map((k) =>
    k.toLowerCase(),
  ),
);

const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(-----END [A-Z0-9 ]+-----|$)/g;
/** A JWT (header always base64url of `{"`), or any three long base64url parts joined by dots. */
const JWT =
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|\b[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\b/g;
const HEX_RUN = /\b[0-9a-fA-F]{32,}\b/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const KEY_VALUE =
  /\b(client_secret|clientSecret|password|passwd|secret|access_token|accessToken|refresh_token|refreshToken|id_token|token|authorization|pinblock|pinBlock|encryptedData|cvv|track2)(["']?\s*[:=]\s*["']?)([^\s"'&,;}]+)/gi;
const DIGIT_RUN = /\b\d(?:[ -]?\d){12,18}\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Removes what looks secret from free text: PEM blocks, JWTs, bearer credentials,
 * `secret=value` pairs, long hex runs (keys, signing secrets) and card numbers that pass
 * the Luhn check. A second line of defence behind the logger's own redaction.
 */
export function scrubText(text: string): string {
  return text
    .replace(PEM, '[redacted-pem]')
    .replace(JWT, '[redacted-jwt]')
    .replace(BEARER, `$1 ${SCRUBBED}`)
    .replace(KEY_VALUE, (_m, key: string, sep: string) => `${key}${sep}${SCRUBBED}`)
    .replace(HEX_RUN, '[redacted-hex]')
    .replace(DIGIT_RUN, (m) => {
      const digits = m.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhn(digits) ? '[redacted-pan]' : m;
    });
}

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_SET.has(key.toLowerCase());
}

/**
 * A deep copy where strings are scrubbed and scalar values under secret keys are
 * replaced; objects under such keys (e.g. a readiness check named `token`) are kept
 * and scrubbed in turn.
 */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (depth > 32) return SCRUBBED;
  if (typeof value === 'string') return scrubText(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        isSecretKey(k) && (v === null || typeof v !== 'object')
          ? v === null || v === undefined
            ? v
            : SCRUBBED
          : scrubValue(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** Removes PEM blocks from a whole text, across lines (before it is split into log lines). */
export function scrubPemBlocks(text: string): string {
  return text.replace(PEM, '[redacted-pem]');
}

/** A line that is nothing but a long base64 run: a fragment of key material or of an encoded secret. */
const BASE64_LINE = /^\s*[A-Za-z0-9+/_-]{40,}={0,2}\s*$/;

/** One log line: JSON lines are scrubbed field by field (numbers such as `time` survive), others as text. */
export function scrubLogLine(line: string): string {
  const trimmed = line.trim();
  if (BASE64_LINE.test(trimmed)) return '[redacted-base64]';
  if (trimmed.startsWith('{')) {
    try {
      return JSON.stringify(scrubValue(JSON.parse(trimmed) as unknown));
    } catch {
      // not JSON after all
    }
  }
  return scrubText(line);
}
