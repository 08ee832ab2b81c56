// The configuration of `faxstack serve` and `faxstack daemon`: one schema read from a JSON file
// (`--config FILE` / FAXSTACK_CONFIG), FAXSTACK_* environment variables and flags, in that
// order of increasing precedence over the defaults. Validation collects every problem with its
// key and where the value came from, so one start shows them all; secrets never appear in
// messages or in the effective configuration that is logged.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { GatewayConfigError, parseGateways, parseGatewaysJson, type GatewaysConfig } from '../engine/index.js';
import { parseStoreUrl, redactStoreUrl, StoreUrlError } from '../store/index.js';
import { UsageError } from './usage-error.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

interface RateLimitsConfig {
  perHour?: number;
  burst?: number;
  inFlight?: number;
}

/** The effective configuration (defaults applied; `store` null: the SQLite file in `data`). */
interface FaxstackConfig {
  port: number;
  host: string;
  data: string;
  store: string | null;
  gateways: GatewaysConfig | null;
  shutdownGraceSeconds: number;
  sessionSecret: string | null;
  fetchAllowHosts: string[];
  renderThreads: number | null;
  /** null: the process's default (serve: only when listening on loopback; daemon: no). */
  allowPrivateWebhooks: boolean | null;
  rateLimits: RateLimitsConfig;
  /** The daemon's /metrics and /health/* endpoint (null: none). */
  metricsPort: number | null;
  metricsHost: string | null;
  logLevel: LogLevel;
}

/** Where a value came from: the file's path, an environment variable or a flag. */
type ConfigSource = { kind: 'file'; path: string } | { kind: 'env'; name: string } | { kind: 'flag'; name: string };

interface ConfigProblem {
  /** JSON path of the key (`rateLimits.perHour`, `gateways[0].channels`). */
  path: string;
  source: ConfigSource;
  message: string;
}

/** A usage error (exit status 2) listing every problem, one a line. */
export class ConfigError extends UsageError {
  constructor(readonly problems: ConfigProblem[]) {
    const n = problems.length;
    super(`invalid configuration (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `  ${describeSource(p.source)}: ${p.path}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function describeSource(s: ConfigSource): string {
  return s.kind === 'file' ? s.path : s.kind === 'env' ? s.name : s.name;
}

export const DEFAULT_CONFIG: Readonly<FaxstackConfig> = {
  port: 8080, host: '127.0.0.1', data: './data', store: null, gateways: null, shutdownGraceSeconds: 30, sessionSecret: null,
  fetchAllowHosts: [], renderThreads: null, allowPrivateWebhooks: null, rateLimits: {}, metricsPort: null, metricsHost: null, logLevel: 'info',
};

/** Every key of the file, its environment variable, and how a value is checked. */
type Check = (v: unknown, at: string, bad: (message: string, path?: string) => void, src: ConfigSource) => unknown;
interface Key {
  env?: string;
  /** Parses the environment's text into the file's JSON type. */
  fromEnv?: (text: string) => unknown;
  check: Check;
  secret?: boolean;
}

const SECRET_MIN = 32;
const MAX_LIMIT = 100_000_000;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.?$/;
const RATE_KEYS = ['perHour', 'burst', 'inFlight'] as const;

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v) : JSON.stringify(v) ?? String(v));
const envInt = (t: string): unknown => (/^\s*-?\d+\s*$/.test(t) ? Number(t) : t);
const envNum = (t: string): unknown => (/^\s*-?\d+(\.\d+)?\s*$/.test(t) ? Number(t) : t);
const envBool = (t: string): unknown => ({ '1': true, true: true, yes: true, '0': false, false: false, no: false })[t.trim().toLowerCase()] ?? t;
const envList = (t: string): unknown => t.split(',').map((h) => h.trim()).filter(Boolean);

function int(lo: number, hi: number): Check {
  return (v, _at, bad) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) return bad(`must be an integer from ${lo} to ${hi}, got ${show(v)}`);
    return v;
  };
}

const nonEmpty: Check = (v, _at, bad) => (typeof v === 'string' && v.trim() !== '' ? v : bad(`must be a non-empty string, got ${show(v)}`));

export const KEYS: Record<keyof FaxstackConfig, Key> = {
  port: { env: 'FAXSTACK_PORT', fromEnv: envInt, check: int(0, 65535) },
  host: {
    env: 'FAXSTACK_HOST',
    check: (v, _at, bad) => (typeof v === 'string' && (isIP(v) !== 0 || HOSTNAME.test(v)) ? v : bad(`must be an IP address or a host name, got ${show(v)}`)),
  },
  data: { env: 'FAXSTACK_DATA', check: nonEmpty },
  store: {
    env: 'FAXSTACK_STORE',
    check: (v, _at, bad) => {
      if (typeof v !== 'string') return bad(`must be a file path, sqlite:PATH or postgres://..., got ${show(v)}`);
      try {
        const loc = parseStoreUrl(v);
        if (loc.engine === 'postgres') {
          try {
            // An empty host is PostgreSQL's default (a unix socket, `?host=/dir`): valid.
            new URL(loc.url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?]*@)?)(?=[/?]|$)/i, '$1localhost'));
          } catch {
            return bad(`${redactStoreUrl(loc.url)} is not a valid URL`);
          }
        }
        return v.trim();
      } catch (err) {
        if (err instanceof StoreUrlError) return bad(err.message);
        throw err;
      }
    },
  },
  gateways: {
    env: 'FAXSTACK_GATEWAYS',
    // The environment (like --gateways) names a gateways file; it is read in loadConfig.
    check: (v, at, bad, src) => {
      // The file's `gateways`: an array of gateways, or a whole gateways file `{ line, retry, gateways }`.
      const raw = Array.isArray(v) ? { gateways: v } : v;
      try {
        return parseGateways(raw, describeSource(src));
      } catch (err) {
        if (!(err instanceof GatewayConfigError)) throw err;
        const field = err.field === '(file)' ? '' : err.field;
        return bad(err.problem, Array.isArray(v) ? `${at}${field.replace(/^gateways/, '')}` : field ? `${at}.${field}` : at);
      }
    },
  },
  shutdownGraceSeconds: {
    env: 'FAXSTACK_SHUTDOWN_GRACE',
    fromEnv: envNum,
    check: (v, _at, bad) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 3600 ? v : bad(`must be a number of seconds from 0 to 3600, got ${show(v)}`)),
  },
  sessionSecret: {
    env: 'FAXSTACK_SESSION_SECRET',
    secret: true,
    // Never echoed: only its kind and length are told.
    check: (v, _at, bad) => {
      if (typeof v !== 'string') return bad(`must be a string, got a ${v === null ? 'null' : typeof v}`);
      if (v.length < SECRET_MIN) return bad(`must be at least ${SECRET_MIN} characters (got ${v.length}); e.g. openssl rand -hex 32`);
      return v;
    },
  },
  fetchAllowHosts: {
    env: 'FAXSTACK_FETCH_ALLOW_HOSTS',
    fromEnv: envList,
    check: (v, at, bad) => {
      if (!Array.isArray(v)) return bad(`must be an array of host names, got ${show(v)}`);
      const wrong = v.map((h, i) => [h, i] as const).filter(([h]) => typeof h !== 'string' || !(isIP(h) !== 0 || HOSTNAME.test(h)));
      for (const [h, i] of wrong) bad(`must be a host name or IP address, got ${show(h)}`, `${at}[${i}]`);
      return (v as string[]).map((h) => String(h).toLowerCase());
    },
  },
  renderThreads: { env: 'FAXSTACK_RENDER_THREADS', fromEnv: envInt, check: int(1, 64) },
  allowPrivateWebhooks: {
    env: 'FAXSTACK_ALLOW_PRIVATE_WEBHOOKS',
    fromEnv: envBool,
    check: (v, _at, bad) => (typeof v === 'boolean' ? v : bad(`must be true or false (environment: 1/0, true/false), got ${show(v)}`)),
  },
  rateLimits: {
    check: (v, at, bad) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad(`must be an object { perHour, burst, inFlight }, got ${show(v)}`);
      const out: RateLimitsConfig = {};
      for (const [k, x] of Object.entries(v)) {
        if (!(RATE_KEYS as readonly string[]).includes(k)) bad(`unknown key (known: ${RATE_KEYS.join(', ')})`, `${at}.${k}`);
        else {
          const n = int(1, MAX_LIMIT)(x, `${at}.${k}`, (m) => bad(m, `${at}.${k}`), { kind: 'flag', name: '' });
          if (typeof n === 'number') out[k as (typeof RATE_KEYS)[number]] = n;
        }
      }
      return out;
    },
  },
  metricsPort: { env: 'FAXSTACK_METRICS_PORT', fromEnv: envInt, check: int(0, 65535) },
  metricsHost: {
    env: 'FAXSTACK_METRICS_HOST',
    check: (v, _at, bad) => (typeof v === 'string' && (isIP(v) !== 0 || HOSTNAME.test(v)) ? v : bad(`must be an IP address or a host name, got ${show(v)}`)),
  },
  logLevel: {
    env: 'FAXSTACK_LOG_LEVEL',
    check: (v, _at, bad) => ((LOG_LEVELS as readonly unknown[]).includes(v) ? v : bad(`must be one of ${LOG_LEVELS.join(', ')}, got ${show(v)}`)),
  },
};

/** Environment variables of the rate limits (they map onto `rateLimits.*`). */
export const RATE_ENV = { perHour: 'FAXSTACK_RATE_LIMIT_PER_HOUR', burst: 'FAXSTACK_RATE_LIMIT_BURST', inFlight: 'FAXSTACK_RATE_LIMIT_IN_FLIGHT' } as const;

/** Flag values as given on the command line (strings/booleans; absent ones undefined). */
export interface ConfigFlags {
  config?: string;
  port?: string;
  host?: string;
  data?: string;
  store?: string;
  gateways?: string;
  grace?: string;
  'allow-private-webhooks'?: boolean;
  'log-level'?: string;
}

const FLAG_KEYS: Record<Exclude<keyof ConfigFlags, 'config' | 'gateways'>, { key: keyof FaxstackConfig; parse: (t: string) => unknown }> = {
  port: { key: 'port', parse: envInt },
  host: { key: 'host', parse: (t) => t },
  data: { key: 'data', parse: (t) => t },
  store: { key: 'store', parse: (t) => t },
  grace: { key: 'shutdownGraceSeconds', parse: envNum },
  'allow-private-webhooks': { key: 'allowPrivateWebhooks', parse: envBool },
  'log-level': { key: 'logLevel', parse: (t) => t },
};

/**
 * The effective configuration from the file (`flags.config`, else FAXSTACK_CONFIG), the
 * environment and the flags; throws a ConfigError listing every problem.
 */
export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): FaxstackConfig {
  const problems: ConfigProblem[] = [];
  const cfg: FaxstackConfig = { ...DEFAULT_CONFIG, rateLimits: {} };
  const set = (key: keyof FaxstackConfig, raw: unknown, at: string, source: ConfigSource) => {
    let failed = false;
    const v = KEYS[key].check(raw, at, (message, path) => ((failed = true), problems.push({ path: path ?? at, source, message })), source);
    if (failed) return;
    if (key === 'rateLimits') cfg.rateLimits = { ...cfg.rateLimits, ...(v as RateLimitsConfig) };
    else (cfg as unknown as Record<string, unknown>)[key] = v;
  };

  // 1. The file.
  const file = flags.config ?? (env.FAXSTACK_CONFIG || undefined);
  if (file !== undefined) {
    const source: ConfigSource = flags.config !== undefined ? { kind: 'file', path: flags.config } : { kind: 'file', path: `${file} (FAXSTACK_CONFIG)` };
    const top = readJsonFile(resolve(cwd, file), source, problems);
    if (top !== undefined) {
      if (typeof top !== 'object' || top === null || Array.isArray(top)) problems.push({ path: '(file)', source, message: `must be a JSON object of settings, got ${show(top)}` });
      else {
        for (const [k, v] of Object.entries(top)) {
          if (!Object.hasOwn(KEYS, k)) problems.push({ path: k, source, message: `unknown key (known: ${Object.keys(KEYS).join(', ')})` });
          else set(k as keyof FaxstackConfig, v, k, source);
        }
      }
    }
  }

  // 2. The environment.
  for (const [key, def] of Object.entries(KEYS) as [keyof FaxstackConfig, Key][]) {
    const text = def.env ? env[def.env] : undefined;
    if (text === undefined || text === '' || !def.env) continue;
    const source: ConfigSource = { kind: 'env', name: def.env };
    if (key === 'gateways') setGatewaysFile(text, source, cwd, cfg, problems);
    else set(key, def.fromEnv ? def.fromEnv(text) : text, key, source);
  }
  for (const [k, name] of Object.entries(RATE_ENV)) {
    const text = env[name];
    if (text !== undefined && text !== '') set('rateLimits', { [k]: envInt(text) }, 'rateLimits', { kind: 'env', name });
  }

  // 3. The flags.
  for (const [flag, { key, parse }] of Object.entries(FLAG_KEYS)) {
    const v = flags[flag as keyof ConfigFlags];
    if (v === undefined) continue;
    set(key, typeof v === 'string' ? parse(v) : v, key, { kind: 'flag', name: `--${flag}` });
  }
  if (flags.gateways !== undefined) setGatewaysFile(flags.gateways, { kind: 'flag', name: '--gateways' }, cwd, cfg, problems);

  if (problems.length) throw new ConfigError(problems);
  return cfg;
}

/** FAXSTACK_* variables read elsewhere (test facilities, tools): not settings, not typos. */
const OTHER_ENV = new Set(['FAXSTACK_CONFIG', 'FAXSTACK_VIRTUAL_PAGE_MS', 'FAXSTACK_CLOCK_OFFSET_MS', 'FAXSTACK_TEST_MIGRATION_PAUSE_MS', 'FAXSTACK_CALL_LOG', 'FAXSTACK_PG_BIN', 'FAXSTACK_CRASH_SEED', 'FAXSTACK_CACHE_DIR']);

/**
 * FAXSTACK_* variables that are neither a setting nor a known facility — most likely typos
 * (FAXSTACK_PROT). Warned about at start rather than refused: other tools share the prefix.
 */
export function unknownEnvVars(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set([...Object.values(KEYS).map((k) => k.env), ...Object.values(RATE_ENV), ...OTHER_ENV]);
  return Object.keys(env).filter((k) => k.startsWith('FAXSTACK_') && !known.has(k)).sort();
}

/** `--gateways FILE` / FAXSTACK_GATEWAYS: a gateways file replaces the configuration's gateways. */
function setGatewaysFile(path: string, flagOrEnv: ConfigSource, cwd: string, cfg: FaxstackConfig, problems: ConfigProblem[]): void {
  const full = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (err) {
    problems.push({ path: 'gateways', source: flagOrEnv, message: `${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}` });
    return;
  }
  try {
    cfg.gateways = parseGatewaysJson(text, path);
  } catch (err) {
    if (!(err instanceof GatewayConfigError)) throw err;
    const named = flagOrEnv.kind === 'env' ? `${flagOrEnv.name}=${path}` : `${describeSource(flagOrEnv)} ${path}`;
    problems.push({ path: err.field, source: { kind: 'file', path: named }, message: err.problem });
  }
}

function readJsonFile(path: string, source: ConfigSource, problems: ConfigProblem[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push({ path: '(file)', source, message: (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    problems.push({ path: '(file)', source, message: `not valid JSON: ${(err as Error).message}` });
    return undefined;
  }
}

/** The configuration as it may be logged: secrets replaced, the store URL's password hidden. */
export function redactConfig(c: FaxstackConfig): Record<string, unknown> {
  return {
    ...c,
    store: c.store === null ? null : redactStoreUrl(c.store),
    sessionSecret: c.sessionSecret === null ? null : '***',
    gateways: c.gateways === null ? null : {
      line: c.gateways.line,
      ...(c.gateways.retry ? { retry: c.gateways.retry } : {}),
      gateways: c.gateways.gateways.map((g) => ({
        name: g.name, address: g.address, transport: g.transport, media: g.media, channels: g.channels,
        ...(g.username ? { username: g.username } : {}), ...(g.password ? { password: '***' } : {}),
        ...(g.prefixes.length ? { prefixes: g.prefixes } : {}),
      })),
    },
  };
}
