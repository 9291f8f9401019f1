import type { Command } from 'commander';
import { configFor } from '../options.js';
import { printJson, printLine } from '../transaction-output.js';

/**
 * `terminal-agent registers [list|pair|revoke ID]`: cash registers on the store network
 * (docs/registers.md, "Pairing"), through the running agent's local API.
 */
export function register(program: Command): void {
  const registers = program
    .command('registers')
    .description('cash registers paired over the store network: list, pair one, revoke one');

  registers
    .command('list', { isDefault: true })
    .description("the listener's address and certificate fingerprint, and the paired registers")
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const answer = await LocalApiClient.fromConfig(config).call<import('../../ui/index.js').ApiRegistersAnswer>(
        'GET',
        '/api/v1/registers',
      );
      if (opts.json) return printJson(answer);
      const lines = [
        answer.lan.enabled
          ? `store network: ${answer.lan.url ?? ''}  certificate SHA-256 ${answer.lan.fingerprint ?? ''}`
          : 'store network: off (set api.lan.enabled to serve registers)',
        ...(answer.pairing !== undefined ? [`a pairing code is on offer until ${answer.pairing.expiresAt}`] : []),
        ...(answer.registers.length === 0
          ? ['no registers paired']
          : answer.registers.map(
              (r) =>
                `${r.id}  ${r.name}  paired ${r.pairedAt} by ${r.pairedBy}${r.revokedAt !== undefined ? `  REVOKED ${r.revokedAt}` : ''}${r.lastSeenAt !== undefined ? `  last seen ${r.lastSeenAt}` : ''}`,
            )),
      ];
      printLine(lines.join('\n'));
    });

  registers
    .command('pair')
    .description('offer a one-time pairing code to enter on the register')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const { pairing } = await LocalApiClient.fromConfig(config).call<
        import('../../ui/index.js').ApiPairingOfferAnswer
      >('POST', '/api/v1/registers/pairing', {});
      if (opts.json) return printJson({ pairing });
      printLine(
        [
          `pairing code ${pairing.code} (valid until ${pairing.expiresAt})`,
          `the register connects to ${pairing.url} and pins the certificate SHA-256 ${pairing.fingerprint}`,
        ].join('\n'),
      );
    });

  registers
    .command('revoke')
    .description('revoke a register: its key stops working at once')
    .argument('<id>', 'the register id (registers list)')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const answer = await LocalApiClient.fromConfig(config).call<import('../../ui/index.js').ApiRegisterAnswer>(
        'DELETE',
        `/api/v1/registers/${encodeURIComponent(id)}`,
      );
      if (opts.json) return printJson(answer);
      printLine(
        `register ${answer.register.name} (${answer.register.id}) revoked at ${answer.register.revokedAt ?? ''}`,
      );
    });
}
