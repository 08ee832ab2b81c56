// Where a compiled faxstack whose dist/ has none of the build's files (an installed package:
// package.json "files" leaves them out to stay small) keeps them itself, from its first run: the
// one rule for bin/faxstack.js (through cli/main.ts) and documents/pdfium-cache.ts (docs/cli.md).
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { VERSION } from './version.js';

/**
 * The first-run cache for the compiled modules under `distDir`: one directory per faxstack version
 * under FAXSTACK_CACHE_DIR, else $XDG_CACHE_HOME/faxstack, else ~/.cache/faxstack. Null when
 * FAXSTACK_CACHE_DIR is set empty, and when `distDir` is not a dist/ (modules run from src/: tests).
 */
export function firstRunCacheDir(distDir: string): string | null {
  if (basename(distDir) !== 'dist') return null;
  const env = process.env.FAXSTACK_CACHE_DIR;
  if (env === '') return null;
  return join(env ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'faxstack'), VERSION);
}
