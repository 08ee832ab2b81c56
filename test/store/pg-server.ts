// A throwaway PostgreSQL server for one test run: initdb into a temp dir, listening only on a
// unix socket there (no TCP port, nothing shared with other runs), durability off, stopped and
// deleted afterwards. PostgreSQL refuses to run as root, so under root (CI) it runs as the
// `postgres` user that Debian's package creates, through `runuser`.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const SERVER_USER = 'postgres';
const DB_USER = 'faxstack';
const PORT = 5432; // only names the socket file inside our own directory

export interface PgServer {
  /** Creates an empty database and returns its `postgres://` URL. */
  createDatabase(): Promise<string>;
  /**
   * Restarts the server, asynchronously so clients see it happen: `fast` (default) cuts every
   * connection and shuts down cleanly, `immediate` stops without a shutdown checkpoint (a
   * crash: the next start recovers from the WAL); `downMs` keeps it stopped that long first.
   */
  restart(o?: { mode?: 'fast' | 'immediate'; downMs?: number }): Promise<void>;
  stop(): void;
}

/** Where the server binaries are, or why the server cannot run here. */
export function pgAvailability(): { ok: true; binDir: string; runAs: string | null } | { ok: false; reason: string } {
  const binDir = findBinDir();
  if (!binDir) return { ok: false, reason: 'PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql, or set FAXSTACK_PG_BIN' };
  if (process.getuid?.() !== 0) return { ok: true, binDir, runAs: null };
  try {
    execFileSync('id', ['-u', SERVER_USER], { stdio: 'ignore' });
  } catch {
    return { ok: false, reason: `running as root and there is no '${SERVER_USER}' user to run PostgreSQL as (the Debian postgresql package creates it)` };
  }
  return { ok: true, binDir, runAs: SERVER_USER };
}

function findBinDir(): string | null {
  const fromEnv = process.env.FAXSTACK_PG_BIN;
  if (fromEnv) return existsSync(join(fromEnv, 'initdb')) ? fromEnv : null;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  return null;
}

export async function startPgServer(): Promise<PgServer> {
  const avail = pgAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  // Under root the server's user must reach the directory (root's TMPDIR may be private), and a
  // socket path must stay under ~100 bytes: /tmp it is then.
  const dir = mkdtempSync(join(avail.runAs || tmpdir().length > 60 ? '/tmp' : tmpdir(), 'faxstack-pg-'));
  const data = join(dir, 'data');
  const run = (tool: string, args: string[]) => {
    const cmd = join(avail.binDir, tool);
    const [file, argv] = avail.runAs ? ['runuser', ['-u', avail.runAs, '--', cmd, ...args]] : [cmd, args];
    return execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }).toString();
  };
  const runAsync = async (tool: string, args: string[]) => {
    const cmd = join(avail.binDir, tool);
    const [file, argv] = avail.runAs ? ['runuser', ['-u', avail.runAs, '--', cmd, ...args]] : [cmd, args];
    await promisify(execFile)(file, argv, { timeout: 120_000 });
  };
  if (avail.runAs) {
    const uid = Number(execFileSync('id', ['-u', avail.runAs]).toString());
    const gid = Number(execFileSync('id', ['-g', avail.runAs]).toString());
    chownSync(dir, uid, gid);
  }
  const fail = (step: string, e: unknown): never => {
    const err = e as { stderr?: Buffer; message?: string };
    let log = '';
    try {
      log = execFileSync('cat', [join(dir, 'server.log')]).toString();
    } catch { /* no log yet */ }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL ${step} failed: ${err.stderr?.toString() || err.message}\n${log}`);
  };
  try {
    run('initdb', ['-D', data, '-U', DB_USER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
  } catch (e) {
    fail('initdb', e);
  }
  // Durability is not what these tests check: no fsync, and a socket in our own directory only.
  const opts = `-k ${dir} -p ${PORT} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  try {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', opts, 'start']);
  } catch (e) {
    fail('pg_ctl start', e);
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop);
  const url = (db: string) => `postgres://${DB_USER}@/${db}?host=${encodeURIComponent(dir)}&port=${PORT}`;
  let n = 0;
  return {
    async createDatabase() {
      const name = `faxstack_${process.pid}_${++n}`;
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async restart(o = {}) {
      const mode = o.mode ?? 'fast';
      if (!o.downMs) return runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-m', mode, '-w', '-t', '60', '-o', opts, 'restart']);
      await runAsync('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      await new Promise((resolve) => setTimeout(resolve, o.downMs));
      await runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', opts, 'start']);
    },
    stop,
  };
}
