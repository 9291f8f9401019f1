import { Command, CommanderError } from 'commander';
import { addGlobalOptions, type GlobalOptions } from './options.js';
import { commandRegistrations } from './commands/index.js';
import { EXIT_USAGE, UsageError } from './usage.js';

/** Exit codes besides a command's own 0/2/3 (README, "Exit codes"). */
export const EXIT_ERROR = 1;

/** Thrown by the --version listener; main() prints the version (read only then, so that --help stays light). */
const VERSION_REQUESTED = 'terminal-agent.version';

/**
 * The program with every command. `writeErr` receives commander's own error text (the usage
 * error and the help after it): main() prints it, or a JSON error instead under --json.
 */
export function buildProgram(writeErr: (text: string) => void = (text) => process.stderr.write(text)): Command {
  // Output, help and exit settings come first: commands copy them when they are created.
  const program = new Command('terminal-agent')
    .description('Payment terminal agent: device identity, payments, peripherals, offline queue, counter page')
    .configureOutput({ writeErr, outputError: (text, write) => write(text) })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .exitOverride();
  addGlobalOptions(program);
  program.option('-V, --version', "print the agent's version");
  program.on('option:version', () => {
    throw new CommanderError(0, VERSION_REQUESTED, 'version requested');
  });
  // --json is global (every command has it); commands read it as their own option.
  program.hook('preAction', (_program, action) => {
    if (program.opts<GlobalOptions>().json === true) action.setOptionValue('json', true);
  });
  for (const register of commandRegistrations) register(program);
  return program;
}

/** --json anywhere before `--`: also when parsing stopped before commander saw it (e.g. `--version --json`). */
function jsonAsked(program: Command, argv: readonly string[]): boolean {
  if (program.opts<GlobalOptions>().json === true) return true;
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/**
 * What a failed command writes to stderr. Under systemd, stderr is the journal's stream and
 * a line without a `<N>` prefix is filed at info: each line gets `<3>` (err), so
 * `journalctl -p warning` shows why the unit keeps failing (docs/operations.md, "Logs").
 */
async function writeError(text: string): Promise<void> {
  const { isJournalStream } = await import('../core/index.js');
  const journal = isJournalStream(2);
  process.stderr.write(journal ? text.replace(/^(?=.)/gm, '<3>') : text);
}

/** An error under --json: one line on stderr, so that stdout holds only a command's result (README, "Command line"). */
function writeJsonError(code: string, message: string): Promise<void> {
  return writeError(`${JSON.stringify({ error: { code, message } })}\n`);
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let commanderText = '';
  const program = buildProgram((text) => {
    commanderText += text;
  });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    const json = jsonAsked(program, argv);
    if (err instanceof CommanderError) {
      if (err.code === VERSION_REQUESTED) {
        const { packageVersion } = await import('../config/index.js');
        const version = packageVersion();
        process.stdout.write(json ? `${JSON.stringify({ version })}\n` : `${version}\n`);
        return 0;
      }
      // --help: printed on stdout already.
      if (err.exitCode === 0) return 0;
      // Everything else commander refuses is a usage error: unknown option or command, missing or bad argument, no command.
      if (json)
        await writeJsonError(
          'USAGE',
          err.code === 'commander.help'
            ? 'no command given (terminal-agent --help lists them)'
            : err.message.replace(/^error: /, ''),
        );
      else await writeError(commanderText);
      return EXIT_USAGE;
    }
    if (err instanceof UsageError) {
      if (json) await writeJsonError(err.code, err.message);
      else await writeError(`terminal-agent: ${err.message} [${err.code}]\n`);
      return EXIT_USAGE;
    }
    // Loaded only now: the commands load what they need when they run (see commands/index.ts).
    const { AgentError } = await import('../core/index.js');
    const code = err instanceof AgentError ? err.code : 'INTERNAL';
    const message = err instanceof Error ? err.message : String(err);
    if (json) await writeJsonError(code, message);
    // One clear line for the person at the terminal; the code helps support.
    else if (err instanceof AgentError) await writeError(`terminal-agent: ${message} [${code}]\n`);
    else await writeError(`terminal-agent: ${message}\n`);
    return EXIT_ERROR;
  }
}
