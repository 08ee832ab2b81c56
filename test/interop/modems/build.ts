// Builds modem-peer.c (spandsp's V.29 and V.27 ter) against the system's libspandsp into
// node_modules/.cache/faxstack-interop/, once per source version (the name carries a hash of the
// source and flags; written to a temporary name and renamed, so parallel workers are safe) —
// the same scheme as test/interop/fax-audio/build.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(HERE, 'modem-peer.c');
const CACHE_DIR = join(HERE, '..', '..', '..', 'node_modules', '.cache', 'faxstack-interop');

export type ModemPeerBuild = { ok: true; binary: string } | { ok: false; reason: string };

let cached: ModemPeerBuild | undefined;

/** Compiles the peer if needed; says where it is, or why it cannot be built. */
export function buildModemPeer(): ModemPeerBuild {
  if (cached) return cached;
  let flags: string[];
  try {
    const pc = (arg: string): string[] => execFileSync('pkg-config', [arg, 'spandsp'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split(/\s+/).filter(Boolean);
    flags = [...pc('--cflags'), SOURCE, ...pc('--libs')];
  } catch {
    return (cached = { ok: false, reason: 'spandsp not found by pkg-config (apt-get install libspandsp-dev pkg-config)' });
  }
  const args = ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', ...flags, '-lm'];
  const hash = createHash('sha256').update(readFileSync(SOURCE)).update(args.join(' ')).digest('hex').slice(0, 16);
  const binary = join(CACHE_DIR, `modem-peer-${hash}`);
  if (existsSync(binary)) return (cached = { ok: true, binary });
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    execFileSync(process.env.CC ?? 'cc', ['-o', tmp, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(tmp, binary);
  } catch (err) {
    rmSync(tmp, { force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    return (cached = { ok: false, reason: `cannot compile modem-peer.c: ${stderr.trim().slice(0, 2000)}` });
  }
  return (cached = { ok: true, binary });
}
