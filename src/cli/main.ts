import { Command, CommanderError } from 'commander';
import { addGlobalOptions } from './options.js';
import { commandRegistrations } from './commands/index.js';

export function buildProgram(): Command {
  const program = new Command('terminal-agent')
    .description('Payment terminal agent: device identity, payments, peripherals, offline queue, counter page')
    .showHelpAfterError()
    .exitOverride();
  addGlobalOptions(program);
  for (const register of commandRegistrations) register(program);
  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    // Loaded only now: the commands load what they need when they run (see commands/index.ts).
    const { AgentError } = await import('../core/index.js');
    // One clear line for the person at the terminal; the code helps support.
    if (err instanceof AgentError) process.stderr.write(`terminal-agent: ${err.message} [${err.code}]\n`);
    else process.stderr.write(`terminal-agent: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
