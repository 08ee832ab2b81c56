// The public API of `import … from 'faxstack'`: exactly these runtime exports, nothing internal
// (stores, dispatchers, T.30 sessions stay behind the facade), and the version is the package's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as faxstack from '../../src/index.js';

describe('faxstack public API', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(faxstack).sort()).toEqual([
      'ERRORS', 'FaxEngine', 'FaxError', 'RenderedFax', 'VERSION', 'closeWorkers', 'createFaxEngine', 'decodeCall', 'errorByCode',
      'faxstackHttp', 'listenForFax', 'renderFax', 'sendFax',
    ]);
  });

  it('VERSION is package.json’s version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(faxstack.VERSION).toBe(pkg.version);
  });

  it('every export is documented in docs/library.md', () => {
    const doc = readFileSync(new URL('../../docs/library.md', import.meta.url), 'utf8');
    for (const name of Object.keys(faxstack)) expect(doc, name).toContain(name);
  });
});
