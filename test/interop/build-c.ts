// Builds a C helper of the interop tests against the system's libspandsp (Debian
// libspandsp-dev) into node_modules/.cache/faxstack-interop/, once per source version: the
// binary's name carries a hash of the source and the compiler flags, so an edit rebuilds, and
// parallel test workers never see a half-written file (each links to a temporary name and
// renames it into place).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.cache', 'faxstack-interop');

export type CBuild = { ok: true; binary: string } | { ok: false; reason: string };

const built = new Map<string, CBuild>();

function pkgConfig(arg: string): string[] {
  return execFileSync('pkg-config', [arg, 'spandsp'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split(/\s+/).filter(Boolean);
}

/** Compiles `source` (linked with spandsp, `extraLibs` and libm) if needed: where it is, or why it cannot be built. */
export function buildSpandspProgram(source: string, name: string, extraLibs: string[] = []): CBuild {
  const known = built.get(source);
  if (known) return known;
  const result = compile(source, name, extraLibs);
  built.set(source, result);
  return result;
}

function compile(source: string, name: string, extraLibs: string[]): CBuild {
  let cflags: string[];
  let libs: string[];
  try {
    cflags = pkgConfig('--cflags');
    libs = pkgConfig('--libs');
  } catch {
    return { ok: false, reason: 'spandsp not found by pkg-config (apt-get install libspandsp-dev pkg-config)' };
  }
  const args = ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', ...cflags, source, ...libs, ...extraLibs, '-lm'];
  const hash = createHash('sha256').update(readFileSync(source)).update(args.join(' ')).digest('hex').slice(0, 16);
  const binary = join(CACHE_DIR, `${name}-${hash}`);
  if (existsSync(binary)) return { ok: true, binary };
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    execFileSync(process.env.CC ?? 'cc', ['-o', tmp, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(tmp, binary);
  } catch (err) {
    rmSync(tmp, { force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    return { ok: false, reason: `cannot compile ${basename(source)}: ${stderr.trim().slice(0, 2000)}` };
  }
  return { ok: true, binary };
}
