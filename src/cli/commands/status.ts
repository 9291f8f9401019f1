import type { Command } from 'commander';
import type { ApiAgentStatus } from '../../ui/index.js';
import { configFor } from '../options.js';
import { operationExitCode, pendingNote, printJson, printLine, transactionDetail } from '../transaction-output.js';

function money(formatAmount: (minor: number, currency: string) => string, minor: number, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return `${minor} ${currency}`;
  }
}

function agentText(s: ApiAgentStatus, formatAmount: (minor: number, currency: string) => string): string {
  const lines = [
    `agent ${s.ready ? 'ready' : 'NOT READY'} (${s.agent.version}, ${s.agent.environment}, up ${s.agent.uptimeSeconds} s)`,
  ];
  for (const [name, check] of Object.entries(s.checks))
    lines.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${name.padEnd(9)} ${check.detail}`);
  const p = s.platform;
  lines.push(
    `  platform  ${p.online ? 'online' : p.state === 'unknown' ? 'not known yet' : `offline${p.reason !== undefined ? `: ${p.reason}` : ''}`}${p.since !== undefined ? ` (since ${p.since})` : ''}`,
  );
  for (const d of s.devices)
    lines.push(`  ${d.device.padEnd(9)} ${d.state}${d.model ? ` (${d.model})` : ''}${d.reason ? `: ${d.reason}` : ''}`);
  if (s.offline) {
    const totals = Object.entries(s.offline.totals).map(([c, v]) => money(formatAmount, v, c));
    lines.push(
      `  offline   ${s.offline.count}/${s.offline.maxCount} queued${totals.length ? ` (${totals.join(', ')})` : ''}${s.offline.enabled ? '' : ', disabled'}`,
    );
  }
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('status')
    .description("show the running agent's status, or one transaction's")
    .argument('[transaction]', 'a client or server (platform) transaction id')
    .option('--refresh', "ask the platform for the transaction's current status")
    .action(async (id: string | undefined, opts: { refresh?: boolean; json?: boolean }, cmd: Command) => {
      const { config } = await configFor(cmd);
      const { LocalApiClient } = await import('../../ui/index.js');
      const client = LocalApiClient.fromConfig(config);
      if (id === undefined) {
        const s = await client.status();
        if (opts.json) printJson(s);
        else printLine(agentText(s, (await import('../../payments/index.js')).formatAmount));
        return;
      }
      const t = await client.transaction(id, opts.refresh === true);
      if (opts.json) printJson({ transaction: t });
      else printLine([transactionDetail(t), pendingNote(t)].filter(Boolean).join('\n'));
      // A refund, cancel or capture answered pending is looked at here until final: the exit
      // status says how it stands, as the command that sent it did (README, "Exit codes").
      if (t.kind !== 'sale') process.exitCode = operationExitCode(t);
    });
}
