import { readFileSync, existsSync } from 'node:fs';
import { resolve, isAbsolute } from 'node:path';
import { z } from 'zod';
import { AgentError, ErrorCodes, isKnownTimeZone, jsonErrorText } from '../core/index.js';
import { bundledFile } from './bundled.js';
import { checkSecretFileMode } from './file-mode.js';
import { configSchema, environmentNames, secretConfigPaths, type Config, type EnvironmentName } from './schema.js';

export const ENV_PREFIX = 'TERMINAL_AGENT_';
/** Read from the package's own folder when no --config is given (docs/operations.md, "Files the agent finds in its own folder"). */
export const DEFAULT_CONFIG_FILE = 'config/default.json';
/** The platform hosts of each environment, shipped with the package. */
export const ENVIRONMENTS_FILE = 'config/environments.json';
/** The demo platform's seed, shipped with the package: `sim.seedFile` when not set. */
export const DEMO_SEED_FILE = 'config/demo-seed.json';
/** Names the configuration file when no --config is given (docs/operations.md, "Which configuration file is read"). */
export const CONFIG_FILE_VARIABLE = 'TERMINAL_AGENT_CONFIG';
/** An installed terminal's configuration, read when it exists and neither --config nor TERMINAL_AGENT_CONFIG names a file. */
export const SYSTEM_CONFIG_FILE = '/etc/terminal-agent/config.json';
/**
 * Where the CLI looks for the system file instead of SYSTEM_CONFIG_FILE: for tests only, so that
 * no test depends on the machine's /etc (docs/operations.md, "Which configuration file is read").
 */
export const SYSTEM_CONFIG_VARIABLE = 'TERMINAL_AGENT_SYSTEM_CONFIG';
/** TERMINAL_AGENT_* variables that name files, not configuration keys. */
const FILE_VARIABLES: ReadonlySet<string> = new Set([CONFIG_FILE_VARIABLE, SYSTEM_CONFIG_VARIABLE]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface LoadConfigOptions {
  /**
   * Config file given with --config, relative to `cwd`; missing = error. Without it: the file
   * TERMINAL_AGENT_CONFIG names in `env`, then `systemFile` when it exists, then the package's
   * config/default.json, if present.
   */
  file?: string;
  /**
   * The installed terminal's file (the CLI passes SYSTEM_CONFIG_FILE): read when it exists and no
   * file is named. Not given: not looked for (library callers and tests read no system file).
   */
  systemFile?: string;
  env?: NodeJS.ProcessEnv;
  /** CLI flags, already shaped like the config (highest precedence). */
  flags?: JsonObject;
  /** Where relative paths given by the user are resolved (--config, dataDir, identity files, a sim.seedFile that is set). */
  cwd?: string;
}

/** Why a configuration file was read: --config, TERMINAL_AGENT_CONFIG, the system file, the package's default, or none. */
export type ConfigFileSource = 'flag' | 'variable' | 'system' | 'default' | 'none';

export interface LoadedConfig {
  config: Config;
  /** Which file was read, if any. */
  file: string | undefined;
  /** Why that file (`config show`, `diag`). */
  source: ConfigFileSource;
  /** The same for people, one phrase, e.g. "named by TERMINAL_AGENT_CONFIG". */
  reason: string;
}

interface FileChoice {
  file: string | undefined;
  source: ConfigFileSource;
  reason: string;
  /** Named by the person (flag or variable): a missing file is an error. */
  explicit: boolean;
}

/**
 * Which configuration file is read (docs/operations.md, "Which configuration file is read"):
 * --config, then TERMINAL_AGENT_CONFIG, then the installed terminal's system file when it
 * exists, then the package's demo default. A field engineer running a command without
 * --config on an installed terminal gets the terminal's configuration, never the demo one.
 */
function chooseFile(opts: LoadConfigOptions, env: NodeJS.ProcessEnv, cwd: string): FileChoice {
  const variable = env[CONFIG_FILE_VARIABLE];
  const named = variable !== undefined && variable !== '' ? variable : undefined;
  if (opts.file !== undefined) {
    const ignored = named !== undefined ? ` (${CONFIG_FILE_VARIABLE} is set and not read)` : '';
    return { file: resolve(cwd, opts.file), source: 'flag', reason: `given with --config${ignored}`, explicit: true };
  }
  if (named !== undefined)
    return {
      file: resolve(cwd, named),
      source: 'variable',
      reason: `named by ${CONFIG_FILE_VARIABLE}`,
      explicit: true,
    };
  const looked =
    opts.systemFile !== undefined ? `, ${CONFIG_FILE_VARIABLE} or ${opts.systemFile}` : ` or ${CONFIG_FILE_VARIABLE}`;
  if (opts.systemFile !== undefined && existsSync(opts.systemFile)) {
    return {
      file: opts.systemFile,
      source: 'system',
      reason: `the installed terminal's file (no --config or ${CONFIG_FILE_VARIABLE})`,
      explicit: false,
    };
  }
  const fallback = bundledFile(DEFAULT_CONFIG_FILE);
  if (existsSync(fallback))
    return {
      file: fallback,
      source: 'default',
      reason: `the package's demo default (no --config${looked})`,
      explicit: false,
    };
  return {
    file: undefined,
    source: 'none',
    reason: `built-in defaults (no --config${looked}, no package default)`,
    explicit: false,
  };
}

/** `word-or-json`: a key that takes a word or an object (payments.captureMode): JSON when it starts with `{`, else the word. */
type LeafKind = 'string' | 'number' | 'boolean' | 'json' | 'word-or-json';

interface Leaf {
  path: string[];
  kind: LeafKind;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType };
    if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional') && def.innerType)
      s = def.innerType;
    else return s;
  }
}

/** Every settable key of the schema, with how an environment string becomes its value. */
export function configLeaves(schema: z.ZodType = configSchema, path: string[] = []): Leaf[] {
  const inner = unwrap(schema);
  const type = (inner._zod.def as { type: string }).type;
  if (type === 'object') {
    const shape = (inner as z.ZodObject).shape as Record<string, z.ZodType>;
    return Object.entries(shape).flatMap(([k, v]) => configLeaves(v, [...path, k]));
  }
  const kind: LeafKind =
    type === 'string' || type === 'enum'
      ? 'string'
      : type === 'number'
        ? 'number'
        : type === 'boolean'
          ? 'boolean'
          : type === 'union'
            ? 'word-or-json'
            : 'json';
  return [{ path, kind }];
}

export function envName(path: readonly string[]): string {
  return ENV_PREFIX + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('__');
}

function setPath(target: JsonObject, path: readonly string[], value: Json): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as JsonObject;
  }
  node[path[path.length - 1] as string] = value;
}

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge where later layers win; arrays and records given in a layer replace whole values. */
function merge(base: JsonObject, layer: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(layer)) {
    const prev = out[k];
    out[k] = isPlainObject(prev) && isPlainObject(v) && !isRecordKey(k) ? merge(prev, v) : v;
  }
  return out;
}

// Records (currency maps) are replaced, not merged, so that a file can drop a currency.
function isRecordKey(key: string): boolean {
  return key === 'floorLimits' || key === 'maxTotal';
}

function envLayer(env: NodeJS.ProcessEnv, sources: Map<string, string>): JsonObject {
  const layer: JsonObject = {};
  const leaves = new Map(configLeaves().map((l) => [envName(l.path), l]));
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || raw === undefined || FILE_VARIABLES.has(name)) continue;
    const leaf = leaves.get(name);
    if (leaf === undefined) {
      throw new AgentError(
        ErrorCodes.CONFIG_INVALID,
        `config: unknown environment variable ${name} (no such configuration key)`,
        {
          details: { variable: name },
        },
      );
    }
    let value: Json;
    switch (leaf.kind) {
      case 'string':
        value = raw;
        break;
      case 'number':
        value = raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
        break;
      case 'boolean':
        value = /^(true|1|yes)$/i.test(raw) ? true : /^(false|0|no)$/i.test(raw) ? false : raw;
        break;
      case 'word-or-json':
      case 'json':
        if (leaf.kind === 'word-or-json' && !raw.trim().startsWith('{')) {
          value = raw;
          break;
        }
        try {
          value = JSON.parse(raw) as Json;
        } catch {
          throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: ${leaf.path.join('.')}: ${name} is not valid JSON`, {
            details: { key: leaf.path.join('.'), variable: name },
          });
        }
    }
    setPath(layer, leaf.path, value);
    sources.set(leaf.path.join('.'), name);
  }
  return layer;
}

function readConfigFile(file: string, explicit: boolean, namedBy?: string): JsonObject | undefined {
  if (!existsSync(file)) {
    if (!explicit) return undefined;
    throw new AgentError(
      ErrorCodes.CONFIG_FILE_MISSING,
      `config: file ${file}${namedBy !== undefined ? ` (${namedBy})` : ''} does not exist`,
      { details: { file } },
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    // The installed file is the service user's (mode 0600): say how to read it rather than fall back to the demo.
    const hint =
      code === 'EACCES' ? ' (run the command as the service user: sudo -u terminal-agent terminal-agent …)' : '';
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: cannot read ${file}: ${code}${hint}`, {
      cause: err,
      details: { file },
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: ${file} is not valid JSON (${jsonErrorText(err)})`, {
      details: { file },
    });
  }
  if (!isPlainObject(parsed))
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: ${file} must hold a JSON object`, { details: { file } });
  return parsed;
}

function recordSources(layer: JsonObject, label: string, sources: Map<string, string>, prefix: string[] = []): void {
  for (const [k, v] of Object.entries(layer)) {
    const path = [...prefix, k];
    sources.set(path.join('.'), label);
    if (isPlainObject(v)) recordSources(v, label, sources, path);
  }
}

function firstIssueMessage(error: z.ZodError, sources: Map<string, string>): { key: string; message: string } {
  const issue = error.issues[0] as z.core.$ZodIssue;
  if (issue.code === 'unrecognized_keys') {
    const key = [...issue.path.map(String), issue.keys[0] ?? ''].filter((p) => p !== '').join('.');
    const from = sources.get(key);
    return { key, message: `unknown key${from ? ` (from ${from})` : ''}` };
  }
  const key = issue.path.map(String).join('.') || '(root)';
  const from = sources.get(key);
  return { key, message: `${issue.message}${from ? ` (from ${from})` : ''}` };
}

export function loadConfig(opts: LoadConfigOptions = {}): LoadedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const sources = new Map<string, string>();
  const env = opts.env ?? process.env;
  const choice = chooseFile(opts, env, cwd);
  const file = choice.file;
  const fileLayer =
    file !== undefined
      ? readConfigFile(file, choice.explicit, choice.source === 'variable' ? CONFIG_FILE_VARIABLE : undefined)
      : undefined;
  if (file !== undefined && fileLayer) checkSecretFileMode(file, fileLayer);
  if (file !== undefined && fileLayer) recordSources(fileLayer, file, sources);
  const envValues = envLayer(env, sources);
  const flags = opts.flags ?? {};
  recordSources(flags, 'command line', sources);
  const merged = merge(merge(fileLayer ?? {}, envValues), flags);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const { key, message } = firstIssueMessage(result.error, sources);
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: ${key}: ${message}`, { details: { key } });
  }
  const config = result.data;
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(cwd, p));
  config.dataDir = abs(config.dataDir);
  config.identity.certFile = abs(config.identity.certFile);
  config.identity.keyFile = abs(config.identity.keyFile);
  config.identity.caFile = abs(config.identity.caFile);
  // The bundled seed unless someone chose another: found from the package, never the working directory.
  config.sim.seedFile = sources.has('sim.seedFile') ? abs(config.sim.seedFile) : bundledFile(DEMO_SEED_FILE);
  return fileLayer
    ? { config, file, source: choice.source, reason: choice.reason }
    : { config, file: undefined, source: 'none', reason: choice.reason };
}

export interface PlatformEndpoints {
  baseUrl: string;
  authUrl: string;
  deviceAuthUrl: string;
}

const hostsSchema = z.strictObject({
  baseUrl: z.url(),
  authUrl: z.url(),
  deviceAuthUrl: z.url(),
  /** Example hosts that name no real platform: the environment needs its hosts set (docs/operations.md, "Environments"). */
  placeholder: z.boolean().optional(),
  /** The zone the environment's platform writes its server times in (IANA name), when the package knows it. */
  timeZone: z
    .string()
    .refine(isKnownTimeZone, { message: 'expected an IANA time zone name such as UTC or Asia/Singapore' })
    .optional(),
});
const endpointsSchema = z.partialRecord(z.enum(environmentNames), hostsSchema);

const ENDPOINT_KEYS = ['baseUrl', 'authUrl', 'deviceAuthUrl'] as const;

/**
 * A host that can never be a platform: under the reserved top-level domain `.invalid`
 * (RFC 6761: it never resolves), the mark environments.json gives its example hosts.
 */
export function isPlaceholderHost(url: string): boolean {
  try {
    return /(^|\.)invalid\.?$/i.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export interface EnvironmentHosts {
  endpoints: PlatformEndpoints;
  /** Config keys whose host is a placeholder (from a placeholder environment, or under .invalid): empty when all are real. */
  placeholderKeys: string[];
  /** The environment file the defaults came from. */
  file: string;
}

/**
 * Main API, security and device-auth hosts: explicit config first, then the environment's
 * defaults from the package's config/environments.json. Placeholders are reported, not refused
 * (`config show` prints them); `resolveEndpoints` refuses them.
 */
export function environmentHosts(config: Config, environmentsFile = bundledFile(ENVIRONMENTS_FILE)): EnvironmentHosts {
  const env: EnvironmentName = config.environment;
  const raw = readConfigFile(environmentsFile, true);
  const parsed = endpointsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `config: ${environmentsFile}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  }
  const defaults = parsed.data[env];
  if (!defaults)
    throw new AgentError(ErrorCodes.CONFIG_INVALID, `config: environment ${env} is not listed in ${environmentsFile}`);
  const strip = (u: string): string => u.replace(/\/+$/, '');
  const endpoints = {} as PlatformEndpoints;
  const placeholderKeys: string[] = [];
  for (const key of ENDPOINT_KEYS) {
    const own = config.platform[key];
    endpoints[key] = strip(own ?? defaults[key]);
    if ((own === undefined && defaults.placeholder === true) || isPlaceholderHost(endpoints[key]))
      placeholderKeys.push(`platform.${key}`);
  }
  return { endpoints, placeholderKeys, file: environmentsFile };
}

/**
 * The hosts the agent talks to. An environment whose hosts are placeholders is refused with
 * one line naming the keys to set: an agent started against hosts that never resolve would
 * retry its DNS failures forever (docs/operations.md, "Environments").
 */
export function resolveEndpoints(config: Config, environmentsFile?: string): PlatformEndpoints {
  const hosts = environmentHosts(config, environmentsFile);
  if (hosts.placeholderKeys.length > 0) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `config: environment ${config.environment} has no real platform hosts: set ${hosts.placeholderKeys.join(', ')} (or put the real hosts in ${hosts.file})`,
      { details: { key: hosts.placeholderKeys[0], keys: hosts.placeholderKeys, environment: config.environment } },
    );
  }
  return hosts.endpoints;
}

function environmentEntry(config: Config, environmentsFile: string): z.infer<typeof hostsSchema> {
  const parsed = endpointsSchema.safeParse(readConfigFile(environmentsFile, true));
  if (!parsed.success) {
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `config: ${environmentsFile}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  }
  const entry = parsed.data[config.environment];
  if (!entry)
    throw new AgentError(
      ErrorCodes.CONFIG_INVALID,
      `config: environment ${config.environment} is not listed in ${environmentsFile}`,
    );
  return entry;
}

/**
 * The zone the platform writes its server times in (docs/platform-contract.md, "Tolerance of
 * answers", dates and time zone): `platform.timeZone`, else the embedded demo platform's own
 * (`embedded`), else the environment's entry in config/environments.json. There is no
 * default: a zone guessed wrong ends QR codes at the wrong time (UTC read for a platform west
 * of it makes every QR look expired at once), so an environment that names none stops
 * start-up with one line naming the key.
 */
export function resolvePlatformTimeZone(
  config: Config,
  environmentsFile = bundledFile(ENVIRONMENTS_FILE),
  embedded?: string,
): string {
  if (config.platform.timeZone !== undefined) return config.platform.timeZone;
  if (embedded !== undefined) return embedded;
  const zone = environmentEntry(config, environmentsFile).timeZone;
  if (zone !== undefined) return zone;
  throw new AgentError(
    ErrorCodes.CONFIG_INVALID,
    `config: environment ${config.environment} does not name the platform's time zone: set platform.timeZone to the IANA zone its server times are written in (e.g. Asia/Singapore; ask the platform operator), or add "timeZone" to its entry in ${environmentsFile}`,
    { details: { key: 'platform.timeZone', environment: config.environment } },
  );
}

/** The effective configuration with secrets replaced, for `config show`. */
export function redactConfig(config: Config): JsonObject {
  const copy = JSON.parse(JSON.stringify(config)) as JsonObject;
  for (const path of secretConfigPaths) {
    const parts = path.split('.');
    let node: Json | undefined = copy;
    for (const p of parts.slice(0, -1)) node = isPlainObject(node) ? node[p] : undefined;
    const last = parts[parts.length - 1] as string;
    if (isPlainObject(node) && node[last] !== undefined) node[last] = '[redacted]';
  }
  return copy;
}
