import type { Command } from 'commander';
import { formatAmount } from '../../payments/money.js';
import type { AgentStatus } from '../local-api-client.js';
import { LocalApiClient } from '../local-api-client.js';
import { configFor } from '../options.js';
import { printJson, printLine, transactionDetail } from '../transaction-output.js';

function money(minor: number, currency: string): string {
  try {
    return formatAmount(minor, currency);
  } catch {
    return `${minor} ${currency}`;
  }
}

function agentText(s: AgentStatus): string {
  const lines = [`agent ${s.ready ? 'ready' : 'NOT READY'} (${s.agent.environment}, up ${s.agent.uptimeSeconds} s)`];
  for (const [name, check] of Object.entries(s.checks)) lines.push(`  ${check.ok ? 'ok  ' : 'FAIL'} ${name.padEnd(9)} ${check.detail}`);
  lines.push(`  platform  ${s.platform.online ? 'online' : 'offline'}`);
  for (const d of s.devices) lines.push(`  ${d.device.padEnd(9)} ${d.state}${d.model ? ` (${d.model})` : ''}${d.reason ? `: ${d.reason}` : ''}`);
  if (s.offline) {
    const totals = Object.entries(s.offline.totals).map(([c, v]) => money(v, c));
    lines.push(`  offline   ${s.offline.count}/${s.offline.maxCount} queued${totals.length ? ` (${totals.join(', ')})` : ''}${s.offline.enabled ? '' : ', disabled'}`);
  }
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('status')
    .description('show the running agent\'s status, or one transaction\'s')
    .argument('[transaction]', 'client transaction id')
    .option('--refresh', 'ask the platform for the transaction\'s current status')
    .option('--json', 'print JSON')
    .action(async (id: string | undefined, opts: { refresh?: boolean; json?: boolean }, cmd: Command) => {
      const client = LocalApiClient.fromConfig(configFor(cmd).config);
      if (id === undefined) {
        const s = await client.status();
        if (opts.json) printJson(s);
        else printLine(agentText(s));
        return;
      }
      const t = await client.transaction(id, opts.refresh === true);
      if (opts.json) printJson({ transaction: t });
      else printLine(transactionDetail(t));
    });
}
