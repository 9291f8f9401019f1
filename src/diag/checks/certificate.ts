import { statSync } from 'node:fs';
import { describeError, isAgentError, ErrorCodes } from '../../core/index.js';
import { certificateStatus, readIdentity } from '../../identity/index.js';
import type { DiagState } from '../state.js';
import type { CertificateFacts, Outcome } from '../types.js';

function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}

/**
 * Check 2: certificate, key and CA files; key mode 0600 (docs/operations.md,
 * "Certificates and key permissions"); key matches the
 * certificate; serial number; validity and days left; thumbprint. The identity is read
 * even when the key mode is too loose, so the later checks can still run.
 */
export function checkCertificate(state: DiagState): Outcome {
  const config = state.config;
  if (config === undefined) return { status: 'skip', finding: 'needs the configuration (see config)' };
  const id = config.identity;
  const remedyGen = state.embeddedDemo ? ' (development: `terminal-agent certs gen-dev`)' : '';
  let identity;
  try {
    identity = readIdentity({ certFile: id.certFile, keyFile: id.keyFile, caFile: id.caFile, enforceKeyMode: false });
  } catch (err) {
    state.collected.certificate = { error: describeError(err) };
    const code = isAgentError(err) ? err.code : undefined;
    const remedy =
      code === ErrorCodes.CERT_KEY_MISMATCH
        ? 'install the key that belongs to the device certificate'
        : code === ErrorCodes.CERT_NO_SERIAL
          ? 'install the terminal certificate issued for this device (its subject carries serialNumber)'
          : `install the device certificate, key and platform CA at identity.certFile / keyFile / caFile${remedyGen}`;
    return {
      status: 'fail',
      finding: describeError(err),
      remedy,
      facts: { certFile: id.certFile, keyFile: id.keyFile, caFile: id.caFile, code },
    };
  }
  state.identity = identity;
  const now = new Date(state.now());
  const st = certificateStatus(identity, now, id.expiryWarningDays);
  const mode = modeOf(id.keyFile);
  const modeText = mode === undefined ? 'unknown' : mode.toString(8).padStart(4, '0');
  const facts: CertificateFacts = {
    certFile: id.certFile,
    keyFile: id.keyFile,
    caFile: id.caFile,
    keyMode: mode === undefined ? null : modeText,
    subject: identity.subject,
    serialNumber: identity.serialNumber,
    issuer: identity.issuer,
    notBefore: identity.notBefore.toISOString(),
    notAfter: identity.notAfter.toISOString(),
    daysLeft: st.daysLeft,
    state: st.state,
    thumbprint: identity.thumbprint,
    fingerprint256: identity.fingerprint256,
  };
  state.collected.certificate = facts;
  const what = `terminal ${identity.serialNumber}, x5t#S256 ${identity.thumbprint}`;
  const looseMode = process.platform !== 'win32' && mode !== undefined && (mode & 0o077) !== 0;
  if (looseMode) {
    return {
      status: 'fail',
      finding: `device key ${id.keyFile} has mode ${modeText} (readable by group or others); ${what}`,
      remedy: `chmod 600 ${id.keyFile}${id.enforceKeyMode ? ' (the agent refuses to start until then)' : ''}`,
      facts: { ...facts },
    };
  }
  if (st.state === 'expired' || st.state === 'not-yet-valid') {
    return {
      status: 'fail',
      finding:
        st.state === 'expired'
          ? `device certificate expired on ${facts.notAfter} (${-st.daysLeft} days ago); ${what}`
          : `device certificate not valid before ${facts.notBefore}, but the clock says ${now.toISOString()}; ${what}`,
      remedy:
        st.state === 'expired'
          ? 'install a renewed device certificate'
          : "set the terminal's clock (NTP), then check again",
      facts: { ...facts },
    };
  }
  if (st.state === 'expiring') {
    return {
      status: 'warn',
      finding: `expires in ${st.daysLeft} days (${facts.notAfter}); ${what}`,
      remedy: 'renew the device certificate before it expires',
      facts: { ...facts },
    };
  }
  return {
    status: 'ok',
    finding: `valid until ${facts.notAfter} (${st.daysLeft} days left); key mode ${modeText}, matches; ${what}`,
    facts: { ...facts },
  };
}
