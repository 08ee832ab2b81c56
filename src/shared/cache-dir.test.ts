import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstRunCacheDir } from './cache-dir.js';
import { VERSION } from './version.js';

const saved = { FAXSTACK_CACHE_DIR: process.env.FAXSTACK_CACHE_DIR, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
});

function dist(stamped: boolean): string {
  const d = join(mkdtempSync(join(tmpdir(), 'faxstack-cache-dir-')), 'dist');
  mkdirSync(d);
  if (stamped) writeFileSync(join(d, '.build-stamp'), '');
  return d;
}

describe('firstRunCacheDir', () => {
  it('is one directory per version under FAXSTACK_CACHE_DIR, else XDG_CACHE_HOME/faxstack, else ~/.cache/faxstack', () => {
    const d = dist(false);
    process.env.FAXSTACK_CACHE_DIR = '/somewhere';
    expect(firstRunCacheDir(d)).toBe(join('/somewhere', VERSION));
    delete process.env.FAXSTACK_CACHE_DIR;
    process.env.XDG_CACHE_HOME = '/xdg';
    expect(firstRunCacheDir(`${d}/`)).toBe(join('/xdg', 'faxstack', VERSION));
    delete process.env.XDG_CACHE_HOME;
    expect(firstRunCacheDir(d)).toBe(join(homedir(), '.cache', 'faxstack', VERSION));
  });

  it('is none when FAXSTACK_CACHE_DIR is empty, outside a dist/, and in a checkout the build stamped', () => {
    process.env.FAXSTACK_CACHE_DIR = '/somewhere';
    expect(firstRunCacheDir(dist(true))).toBeNull();
    expect(firstRunCacheDir(join(dist(false), '..'))).toBeNull();
    process.env.FAXSTACK_CACHE_DIR = '';
    expect(firstRunCacheDir(dist(false))).toBeNull();
  });
});
