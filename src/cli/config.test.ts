// The configuration loader: precedence flag > environment > file > default, and every bad
// input answered with its key, its source and a message (secrets never shown).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig, redactConfig, unknownEnvVars, ConfigError, type ConfigFlags } from './config.js';
import { UsageError } from './usage-error.js';

const dir = mkdtempSync(join(tmpdir(), 'faxstack-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** Writes `content` (an object as JSON, or raw text) to a new file and returns its path. */
function file(content: unknown): string {
  const p = join(dir, `c${++n}.json`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

function problems(flags: ConfigFlags, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    loadConfig(flags, env, dir);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems.map((p) => `${p.source.kind}:${p.source.kind === 'env' || p.source.kind === 'flag' ? p.source.name : 'FILE'}: ${p.path}: ${p.message}`);
  }
  throw new Error('expected a configuration error');
}

const SECRET = 'x'.repeat(40);
const gw = { name: 'gw1', address: 'sbc.example.net:5060', channels: 2 };

describe('loadConfig: defaults and precedence', () => {
  it('nothing given: the defaults', () => {
    expect(loadConfig({}, {}, dir)).toEqual(DEFAULT_CONFIG);
  });

  it('flag > environment > file > default, key by key', () => {
    const f = file({ port: 1001, host: '0.0.0.0', data: '/srv/a', store: 'sqlite:/srv/a.db', shutdownGraceSeconds: 5, logLevel: 'debug', rateLimits: { perHour: 10, burst: 5 } });
    const env = { FAXSTACK_PORT: '1002', FAXSTACK_HOST: '::1', FAXSTACK_RATE_LIMIT_BURST: '7' };
    const c = loadConfig({ config: f, port: '1003' }, env, dir);
    expect(c.port).toBe(1003); // flag
    expect(c.host).toBe('::1'); // environment
    expect(c.data).toBe('/srv/a'); // file
    expect(c.store).toBe('sqlite:/srv/a.db');
    expect(c.shutdownGraceSeconds).toBe(5);
    expect(c.logLevel).toBe('debug');
    expect(c.rateLimits).toEqual({ perHour: 10, burst: 7 }); // merged per limit
    expect(c.fetchAllowHosts).toEqual([]); // default
    expect(loadConfig({ config: f }, {}, dir).port).toBe(1001);
    // A PostgreSQL URL without a host (a unix socket named by ?host=) is valid.
    expect(loadConfig({ store: 'postgres://fax@/db?host=%2Ftmp%2Fpg&port=5432' }, {}, dir).store).toBe('postgres://fax@/db?host=%2Ftmp%2Fpg&port=5432');
    expect(loadConfig({ config: f }, env, dir).port).toBe(1002);
  });

  it('FAXSTACK_CONFIG names the file when --config does not', () => {
    const f = file({ port: 2001 });
    expect(loadConfig({}, { FAXSTACK_CONFIG: f }, dir).port).toBe(2001);
    expect(loadConfig({ config: file({ port: 2002 }) }, { FAXSTACK_CONFIG: f }, dir).port).toBe(2002);
  });

  it('every key from the file and from the environment', () => {
    const f = file({ gateways: [gw], sessionSecret: SECRET, fetchAllowHosts: ['Docs.Example.COM', '10.0.0.5'], renderThreads: 2, allowPrivateWebhooks: true, rateLimits: { inFlight: 3 } });
    const c = loadConfig({ config: f }, {}, dir);
    expect(c.gateways?.gateways.map((g) => [g.name, g.channels])).toEqual([['gw1', 2]]);
    expect(c.sessionSecret).toBe(SECRET);
    expect(c.fetchAllowHosts).toEqual(['docs.example.com', '10.0.0.5']);
    expect(c.renderThreads).toBe(2);
    expect(c.allowPrivateWebhooks).toBe(true);
    expect(c.rateLimits).toEqual({ inFlight: 3 });
    const e = loadConfig({}, {
      FAXSTACK_SESSION_SECRET: SECRET, FAXSTACK_FETCH_ALLOW_HOSTS: 'a.example, b.example', FAXSTACK_RENDER_THREADS: '4', FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: '0',
      FAXSTACK_RATE_LIMIT_PER_HOUR: '100', FAXSTACK_RATE_LIMIT_IN_FLIGHT: '2', FAXSTACK_SHUTDOWN_GRACE: '2.5', FAXSTACK_LOG_LEVEL: 'warn', FAXSTACK_METRICS_PORT: '9464', FAXSTACK_METRICS_HOST: '0.0.0.0', FAXSTACK_GATEWAYS: file({ line: 'pstn', gateways: [gw] }),
    }, dir);
    expect(e).toMatchObject({ sessionSecret: SECRET, fetchAllowHosts: ['a.example', 'b.example'], renderThreads: 4, allowPrivateWebhooks: false, shutdownGraceSeconds: 2.5, logLevel: 'warn', rateLimits: { perHour: 100, inFlight: 2 }, metricsPort: 9464, metricsHost: '0.0.0.0' });
    expect(e.gateways?.line).toBe('pstn');
  });

  it('gateways: a whole gateways file object in the config, and --gateways FILE over it', () => {
    const f = file({ gateways: { line: 'carrier', retry: { maxAttempts: 2, retryDelaysMs: [1000] }, gateways: [gw] } });
    expect(loadConfig({ config: f }, {}, dir).gateways).toMatchObject({ line: 'carrier', retry: { maxAttempts: 2 } });
    const g = file({ gateways: [{ ...gw, name: 'other' }] });
    expect(loadConfig({ config: f, gateways: g }, {}, dir).gateways?.gateways[0]?.name).toBe('other');
    // The gateways file format is what --gateways reads, as before.
    expect(loadConfig({ gateways: g }, {}, dir).gateways?.line).toBe('gateways');
  });
});

describe('loadConfig: every problem reported with key and source', () => {
  const cases: { name: string; flags?: (f: (c: unknown) => string) => ConfigFlags; env?: NodeJS.ProcessEnv; want: string[] }[] = [
    { name: 'missing file', flags: () => ({ config: join(dir, 'nope.json') }), want: ['file:FILE: (file): no such file'] },
    { name: 'broken JSON', flags: (f) => ({ config: f('{"port": 80,') }), want: ['file:FILE: (file): not valid JSON: '] },
    { name: 'not an object', flags: (f) => ({ config: f([1, 2]) }), want: ['file:FILE: (file): must be a JSON object of settings, got [1,2]'] },
    { name: 'unknown key (a typo)', flags: (f) => ({ config: f({ prot: 80 }) }), want: ['file:FILE: prot: unknown key (known: port, host, data, store, gateways, '] },
    { name: 'a key named like an Object.prototype member', flags: (f) => ({ config: f({ constructor: 1, toString: 'x' }) }), want: ['file:FILE: constructor: unknown key', 'file:FILE: toString: unknown key'] },
    { name: 'port out of range', flags: (f) => ({ config: f({ port: 70000 }) }), want: ['file:FILE: port: must be an integer from 0 to 65535, got 70000'] },
    { name: 'port of the wrong type', flags: (f) => ({ config: f({ port: '80' }) }), want: ['file:FILE: port: must be an integer from 0 to 65535, got "80"'] },
    { name: 'port from the environment', env: { FAXSTACK_PORT: 'eighty' }, want: ['env:FAXSTACK_PORT: port: must be an integer from 0 to 65535, got "eighty"'] },
    { name: 'port from the flag', flags: () => ({ port: '-1' }), want: ['flag:--port: port: must be an integer from 0 to 65535, got -1'] },
    { name: 'host', flags: (f) => ({ config: f({ host: 'bad host!' }) }), want: ['file:FILE: host: must be an IP address or a host name, got "bad host!"'] },
    { name: 'data empty', flags: (f) => ({ config: f({ data: '' }) }), want: ['file:FILE: data: must be a non-empty string, got ""'] },
    { name: 'store: unknown scheme', flags: (f) => ({ config: f({ store: 'mysql://u:hunter2@db/x' }) }), want: ["file:FILE: store: unknown store scheme 'mysql:' in mysql://u:***@db/x"] },
    { name: 'store: not a URL', env: { FAXSTACK_STORE: 'postgres://u:hunter2@[bad/x' }, want: ['env:FAXSTACK_STORE: store: postgres://u:***@[bad/x is not a valid URL'] },
    { name: 'grace', flags: () => ({ grace: '7200' }), want: ['flag:--grace: shutdownGraceSeconds: must be a number of seconds from 0 to 3600, got 7200'] },
    { name: 'session secret too short', env: { FAXSTACK_SESSION_SECRET: 'hunter2' }, want: ['env:FAXSTACK_SESSION_SECRET: sessionSecret: must be at least 32 characters (got 7); e.g. openssl rand -hex 32'] },
    { name: 'session secret of the wrong type', flags: (f) => ({ config: f({ sessionSecret: 12345 }) }), want: ['file:FILE: sessionSecret: must be a string, got a number'] },
    { name: 'fetch allow-hosts', flags: (f) => ({ config: f({ fetchAllowHosts: ['ok.example', 'http://x/'] }) }), want: ['file:FILE: fetchAllowHosts[1]: must be a host name or IP address, got "http://x/"'] },
    { name: 'fetch allow-hosts not a list', flags: (f) => ({ config: f({ fetchAllowHosts: 'a.example' }) }), want: ['file:FILE: fetchAllowHosts: must be an array of host names, got "a.example"'] },
    { name: 'render threads', env: { FAXSTACK_RENDER_THREADS: '0' }, want: ['env:FAXSTACK_RENDER_THREADS: renderThreads: must be an integer from 1 to 64, got 0'] },
    { name: 'private webhooks', env: { FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: 'maybe' }, want: ['env:FAXSTACK_ALLOW_PRIVATE_WEBHOOKS: allowPrivateWebhooks: must be true or false (environment: 1/0, true/false), got "maybe"'] },
    { name: 'rate limits: unknown and out of range', flags: (f) => ({ config: f({ rateLimits: { perHour: 0, burts: 5 } }) }), want: ['file:FILE: rateLimits.perHour: must be an integer from 1 to 100000000, got 0', 'file:FILE: rateLimits.burts: unknown key (known: perHour, burst, inFlight)'] },
    { name: 'rate limit from the environment', env: { FAXSTACK_RATE_LIMIT_IN_FLIGHT: '2.5' }, want: ['env:FAXSTACK_RATE_LIMIT_IN_FLIGHT: rateLimits.inFlight: must be an integer from 1 to 100000000, got "2.5"'] },
    { name: 'metrics port', env: { FAXSTACK_METRICS_PORT: '99999' }, want: ['env:FAXSTACK_METRICS_PORT: metricsPort: must be an integer from 0 to 65535, got 99999'] },
    { name: 'log level', env: { FAXSTACK_LOG_LEVEL: 'verbose' }, want: ['env:FAXSTACK_LOG_LEVEL: logLevel: must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'] },
    { name: 'gateways in the config', flags: (f) => ({ config: f({ gateways: [{ ...gw, channels: 0 }] }) }), want: ['file:FILE: gateways[0].channels: must be an integer from 1 to 10000, got 0'] },
    { name: 'gateways object in the config', flags: (f) => ({ config: f({ gateways: { gateways: [gw], colour: 1 } }) }), want: ['file:FILE: gateways.colour: unknown field'] },
    { name: 'gateways file of --gateways', flags: (f) => ({ gateways: f({ gateways: [{ ...gw, media: 'fax' }] }) }), want: ['file:FILE: gateways[0].media: must be one of '] },
    { name: 'missing gateways file', env: { FAXSTACK_GATEWAYS: 'nope.json' }, want: ['env:FAXSTACK_GATEWAYS: gateways: nope.json: no such file'] },
    {
      name: 'many problems at once, from every source',
      flags: (f) => ({ config: f({ port: 1e6, logLevel: 1, extra: true }), grace: 'soon' }),
      env: { FAXSTACK_RENDER_THREADS: '65' },
      want: [
        'file:FILE: port: must be an integer from 0 to 65535, got 1000000', 'file:FILE: logLevel: must be one of ', 'file:FILE: extra: unknown key',
        'env:FAXSTACK_RENDER_THREADS: renderThreads: must be an integer from 1 to 64, got 65', 'flag:--grace: shutdownGraceSeconds: must be a number of seconds from 0 to 3600, got "soon"',
      ],
    },
  ];
  it.each(cases)('$name', ({ flags, env, want }) => {
    const got = problems(flags ? flags(file) : {}, env ?? {});
    expect(got).toHaveLength(want.length);
    want.forEach((w) => expect(got.some((g) => g.startsWith(w)), `${JSON.stringify(got)} has ${w}`).toBe(true));
  });

  it('a bad gateways file is named with the flag or variable that gave it', () => {
    const g = file({ gateways: [{ ...gw, channels: 0 }] });
    const msg = (flags: ConfigFlags, env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(flags, env, dir);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    expect(msg({ gateways: g }, {})).toContain(`  --gateways ${g}: gateways[0].channels: must be an integer from 1 to 10000, got 0`);
    expect(msg({}, { FAXSTACK_GATEWAYS: g })).toContain(`  FAXSTACK_GATEWAYS=${g}: gateways[0].channels: must be an integer`);
  });

  it('the message lists each problem on its own line with its source, and never a secret', () => {
    const f = file({ sessionSecret: 'hunter2-short', store: 'postgres://fax:hunter2@[::1/x', port: 'x' });
    let msg = '';
    try {
      loadConfig({ config: f }, { FAXSTACK_SESSION_SECRET: 'hunter2' }, dir);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg.split('\n')[0]).toBe('invalid configuration (4 problems):');
    expect(msg).toContain(`  ${f}: port: must be an integer`);
    expect(msg).toContain('  FAXSTACK_SESSION_SECRET: sessionSecret: must be at least 32 characters (got 7)');
    expect(msg).not.toContain('hunter2');
  });
});

describe('redactConfig', () => {
  it('hides the session secret, the store password and gateway passwords', () => {
    const f = file({ sessionSecret: SECRET, store: 'postgres://fax:hunter2@db.example/fax', gateways: [{ ...gw, username: 'u', password: 'hunter2' }] });
    const shown = JSON.stringify(redactConfig(loadConfig({ config: f }, {}, dir)));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('postgres://fax:***@db.example/fax');
    expect(shown).toContain('"password":"***"');
  });
});

describe('unknownEnvVars', () => {
  it('names FAXSTACK_* variables that are neither settings nor known facilities (typos)', () => {
    expect(unknownEnvVars({ FAXSTACK_PROT: '80', FAXSTACK_PORT: '80', FAXSTACK_RATE_LIMIT_BURST: '5', FAXSTACK_VIRTUAL_PAGE_MS: '300', FAXSTACK_CONFIG: 'x', HOME: '/root', FAXSTACK_SESION_SECRET: 'x' }))
      .toEqual(['FAXSTACK_PROT', 'FAXSTACK_SESION_SECRET']);
  });
});
