// Builds the spandsp T.38 test peer (t38peer.c) against the system's libspandsp (Debian
// libspandsp-dev 0.0.6) into node_modules/.cache/faxstack-interop/, once per source version:
// the binary's name carries a hash of the source and the compiler flags, so an edit rebuilds
// and parallel test workers never see a half-written file (each links to a temporary name and
// renames it into place).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(HERE, 't38peer.c');
export const CACHE_DIR = join(HERE, '..', '..', '..', 'node_modules', '.cache', 'faxstack-interop');

export type PeerBuild = { ok: true; binary: string } | { ok: false; reason: string };

let cached: PeerBuild | undefined;

function pkgConfig(...args: string[]): string[] {
  return execFileSync('pkg-config', [...args, 'spandsp'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/**
 * Compiles the peer if needed and says where it is, or why it cannot be built (spandsp, libtiff
 * or a C compiler missing). Synchronous so test files can decide to skip at collection time.
 */
export function buildPeer(): PeerBuild {
  if (cached) return cached;
  let cflags: string[];
  let libs: string[];
  try {
    cflags = pkgConfig('--cflags');
    libs = pkgConfig('--libs');
  } catch {
    return (cached = { ok: false, reason: 'spandsp not found by pkg-config (apt-get install libspandsp-dev pkg-config)' });
  }
  const args = ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', ...cflags, SOURCE, ...libs, '-ltiff', '-lm'];
  const hash = createHash('sha256').update(readFileSync(SOURCE)).update(args.join(' ')).digest('hex').slice(0, 16);
  const binary = join(CACHE_DIR, `t38peer-${hash}`);
  if (existsSync(binary)) return (cached = { ok: true, binary });
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    execFileSync(process.env.CC ?? 'cc', ['-o', tmp, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(tmp, binary);
  } catch (err) {
    rmSync(tmp, { force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    return (cached = { ok: false, reason: `cannot compile t38peer.c: ${stderr.trim().slice(0, 2000)}` });
  }
  return (cached = { ok: true, binary });
}

/** True when the interop tests must run (CI): a missing spandsp is then a failure, not a skip. */
export const INTEROP_REQUIRED = Boolean(process.env.CI);

// `node --import tsx test/interop/spandsp/build.ts` builds and prints the binary's path.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const b = buildPeer();
  if (b.ok) console.log(b.binary);
  else {
    console.error(b.reason);
    process.exit(1);
  }
}
