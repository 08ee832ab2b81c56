// The manual (README.md, the door, and docs/*.md, the house) against the code: docs/api.md lists
// every code of the error table with its envelope status and HTTP status as the API maps them
// (a test checks that the docs list every code), and every endpoint of the OpenAPI document;
// docs/configuration.md every configuration key; docs/gateways.md every gateways-file field. The
// README links every docs page, and every relative link of README and docs/ resolves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/shared/errors.js';
import { KIND_STATUS } from '../src/api/envelope.js';
import { KEYS, RATE_ENV } from '../src/cli/config.js';
import { GatewayConfigError, parseGateways } from '../src/engine/gateways.js';

const ROOT = resolve(import.meta.dirname, '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const readme = read('README.md');
const api = read('docs/api.md');
const configuration = read('docs/configuration.md');
const gateways = read('docs/gateways.md');

const rows = new Map(
  api
    .split('\n')
    .filter((l) => /^\| -?\d+ \| [A-Z_]+ \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return [Number(cells[1]), { name: cells[2], where: cells[3] }] as const;
    }),
);

describe('docs/api.md code table', () => {
  it.each(Object.values(ERRORS))('documents $code $name', (def) => {
    const row = rows.get(def.code);
    expect(row, `docs/api.md has no row for ${def.code}`).toBeDefined();
    expect(row!.name).toBe(def.name);
    if (def.kind === 'transmission') expect(row!.where).toBe('job code');
    else if (def.code !== 0) expect(row!.where).toBe(`${KIND_STATUS[def.kind].status} / ${KIND_STATUS[def.kind].http}`);
  });

  it('lists no code the table does not have', () => {
    for (const code of rows.keys()) expect(Object.values(ERRORS).some((d) => d.code === code), `unknown code ${code} in docs/api.md`).toBe(true);
  });
});

describe('docs/api.md endpoint table', () => {
  it('lists every path of the OpenAPI document, and nothing else', async () => {
    const { openApiDocument } = await import('../src/api/index.js');
    const doc = openApiDocument('test') as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).sort();
    const table = [...api.matchAll(/^\| `(\/[^`?]+)[^`]*` \| (?:GET|POST)/gm)].map((m) => m[1]!).sort();
    expect(table).toEqual(paths);
  });
});

describe('docs/configuration.md settings table', () => {
  /** First cell (`key`) → the row's cells. */
  const table = new Map(
    configuration
      .split('\n')
      .filter((l) => /^\| `[A-Za-z.]+` \|/.test(l))
      .map((l) => {
        const cells = l.split('|').map((c) => c.trim());
        return [cells[1]!.replace(/`/g, ''), cells] as const;
      }),
  );
  const expected = Object.entries(KEYS).flatMap(([key, def]) =>
    key === 'rateLimits' ? Object.entries(RATE_ENV).map(([k, env]) => [`rateLimits.${k}`, env] as const) : [[key, def.env] as const],
  );

  it.each(expected)('documents %s with its variable %s', (key, env) => {
    const row = table.get(key);
    expect(row, `docs/configuration.md has no row for ${key}`).toBeDefined();
    expect(row![3]).toContain(env);
  });

  it('documents no key the configuration does not have', () => {
    const known = new Set(expected.map(([k]) => k));
    for (const key of table.keys()) expect(known.has(key), `unknown key ${key} in docs/configuration.md`).toBe(true);
  });
});

describe('docs/gateways.md field table', () => {
  /** The fields the parser knows, read from its own "unknown field" message. */
  const known = (raw: unknown): string[] => {
    try {
      parseGateways(raw);
    } catch (err) {
      if (err instanceof GatewayConfigError) return /expected ([^)]+)\)/.exec(err.problem)![1]!.split(', ');
      throw err;
    }
    throw new Error('an unknown field was accepted');
  };
  const fields = [...known({ zzz: 1 }), ...known({ gateways: [{ name: 'a', channels: 1, zzz: 1 }] })].sort();
  const documented = [...gateways.matchAll(/^\| (`[A-Za-z0-9]+`(?: \/ `[A-Za-z0-9]+`)*) \|/gm)]
    .flatMap((m) => m[1]!.split(' / ').map((f) => f.replace(/`/g, '')))
    .sort();

  it('lists every field the gateways file accepts, and nothing else', () => {
    expect(documented).toEqual(fields);
  });
});

describe('links', () => {
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

  it.each(pages)('README links docs/%s', (page) => {
    expect(readme, `README.md does not link docs/${page}`).toContain(`](docs/${page})`);
  });

  it.each(['README.md', ...pages.map((p) => `docs/${p}`)])('every relative link of %s resolves', (file) => {
    const text = read(file)
      .replace(/^```[\s\S]*?^```/gm, '')
      .replace(/`[^`\n]*`/g, '');
    const targets = [
      ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!),
    ].filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'));
    const missing = targets.filter((t) => !existsSync(resolve(ROOT, dirname(file), decodeURIComponent(t.split('#')[0]!))));
    expect(missing, `${file} links to missing files`).toEqual([]);
  });
});
