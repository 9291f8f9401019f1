import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { configFor } from '../options.js';

interface GenDevOptions {
  dir: string;
  force?: boolean;
  json?: boolean;
}

async function genDev(opts: GenDevOptions): Promise<void> {
  const { devCertPaths, devCertFiles, generateDevCerts } = await import('../../identity/index.js');
  const dir = resolve(opts.dir);
  const files = devCertFiles(devCertPaths(dir));
  const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8).padStart(4, '0');
  if (!opts.force && files.every((f) => existsSync(f))) {
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ dir, generated: false }, null, 2)}\n`
        : `development certificates already present in ${dir} (use --force to regenerate)\n`,
    );
    return;
  }
  generateDevCerts(dir, { force: opts.force === true });
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify({ dir, generated: true, files: files.map((file) => ({ file, mode: mode(file) })) }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(`development certificates written to ${dir}:\n`);
  // Names and modes only: key contents never reach the terminal.
  for (const f of files) process.stdout.write(`  ${f} (mode ${mode(f)})\n`);
}

interface ShowOptions {
  json?: boolean;
}

async function show(opts: ShowOptions, cmd: Command): Promise<void> {
  const { config } = await configFor(cmd);
  const { AgentError, ErrorCodes } = await import('../../core/index.js');
  const { certificateStatus, readIdentity } = await import('../../identity/index.js');
  const id = config.identity;
  const identity = readIdentity({
    certFile: id.certFile,
    keyFile: id.keyFile,
    caFile: id.caFile,
    enforceKeyMode: id.enforceKeyMode,
  });
  const status = certificateStatus(identity, new Date(), id.expiryWarningDays);
  const facts = {
    certFile: id.certFile,
    subject: identity.subject,
    serialNumber: identity.serialNumber,
    issuer: identity.issuer,
    notBefore: identity.notBefore.toISOString(),
    notAfter: identity.notAfter.toISOString(),
    daysLeft: status.daysLeft,
    state: status.state,
    message: status.message,
    thumbprint: identity.thumbprint,
    fingerprint256: identity.fingerprint256,
  };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(facts, null, 2)}\n`);
  } else {
    const rows: Array<[string, string]> = [
      ['certificate', facts.certFile],
      ['subject', facts.subject],
      ['serial number', facts.serialNumber],
      ['issuer', facts.issuer],
      ['valid from', facts.notBefore],
      ['valid until', facts.notAfter],
      ['days left', String(facts.daysLeft)],
      ['state', `${facts.state}: ${facts.message}`],
      ['x5t#S256', facts.thumbprint],
      ['sha256', facts.fingerprint256],
    ];
    for (const [k, v] of rows) process.stdout.write(`${`${k}:`.padEnd(15)}${v}\n`);
  }
  // The details above help diagnose; a certificate the agent would refuse still fails the command.
  if (status.state === 'expired') throw new AgentError(ErrorCodes.CERT_EXPIRED, `${id.certFile}: ${status.message}`);
  if (status.state === 'not-yet-valid')
    throw new AgentError(ErrorCodes.CERT_NOT_YET_VALID, `${id.certFile}: ${status.message}`);
}

export function register(program: Command): void {
  const certs = program
    .command('certs')
    .description('device certificate: show it, or generate development certificates');
  certs
    .command('gen-dev')
    .description(
      'generate the development PKI offline (platform CA, server, device, unknown, expired, foreign certificates)',
    )
    .option('--dir <dir>', 'directory to write to', 'certs')
    .option('--force', 'overwrite existing files')
    .action((opts: GenDevOptions) => genDev(opts));
  certs
    .command('show')
    .description('print the configured device certificate: subject, serial number, issuer, validity, thumbprint')
    .action((opts: ShowOptions, cmd: Command) => show(opts, cmd));
}
