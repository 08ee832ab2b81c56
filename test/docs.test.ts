// The documentation lists every code of the error table, with its envelope status and HTTP
// status as the API maps them (STYLE.md: a test checks that the docs list every code).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../src/shared/errors.js';
import { KIND_STATUS } from '../src/api/envelope.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const rows = new Map(
  readme
    .split('\n')
    .filter((l) => /^\| -?\d+ \| [A-Z_]+ \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return [Number(cells[1]), { name: cells[2], where: cells[3] }] as const;
    }),
);

describe('README code table', () => {
  it.each(Object.values(ERRORS))('documents $code $name', (def) => {
    const row = rows.get(def.code);
    expect(row, `README has no row for ${def.code}`).toBeDefined();
    expect(row!.name).toBe(def.name);
    if (def.kind === 'transmission') expect(row!.where).toBe('job code');
    else if (def.code !== 0) expect(row!.where).toBe(`${KIND_STATUS[def.kind].status} / ${KIND_STATUS[def.kind].http}`);
  });

  it('lists no code the table does not have', () => {
    for (const code of rows.keys()) expect(Object.values(ERRORS).some((d) => d.code === code), `unknown code ${code} in README`).toBe(true);
  });
});

describe('README endpoint table', () => {
  it('lists every path of the OpenAPI document, and nothing else', async () => {
    const { openApiDocument } = await import('../src/api/index.js');
    const doc = openApiDocument('test') as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).sort();
    const table = [...readme.matchAll(/^\| `(\/[^`?]+)[^`]*` \| (?:GET|POST)/gm)].map((m) => m[1]!).sort();
    expect(table).toEqual(paths);
  });
});
