// Where a compiled faxstack whose dist/ has none of the build's files (an installed package:
// package.json "files" leaves them out to stay small) keeps them itself, from its first run: the
// one rule for bin/faxstack.js (through cli/main.ts) and documents/pdfium-cache.ts (docs/cli.md).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { VERSION } from './version.js';

/**
 * The first-run cache for the compiled modules under `distDir`: one directory per faxstack version
 * under FAXSTACK_CACHE_DIR, else $XDG_CACHE_HOME/faxstack, else ~/.cache/faxstack. Null when
 * FAXSTACK_CACHE_DIR is set empty, when `distDir` is not a dist/ (modules run from src/: tests),
 * and in a checkout that `npm run build` built (its stamp is there, never shipped): a checkout
 * keeps its own files in dist/, and one version's cache must not hold another checkout's rewrites.
 */
export function firstRunCacheDir(distDir: string): string | null {
  if (basename(distDir) !== 'dist' || existsSync(join(distDir, '.build-stamp'))) return null;
  const env = process.env.FAXSTACK_CACHE_DIR;
  if (env === '') return null;
  return join(env ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'faxstack'), VERSION);
}
