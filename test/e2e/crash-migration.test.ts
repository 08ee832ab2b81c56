// kill -9 mid-migration (issue 8, "Crashes"): a fresh store, and `faxstack serve` killed again
// and again during its first start — in the middle of a chosen migration's transaction (the
// FAXSTACK_TEST_MIGRATION_PAUSE_MS hook holds it open and says which one) or at a random moment
// of the start. Each kill leaves the store at the last committed migration; then a clean start
// migrates to the latest version, schema_migrations holds every version once, the SQLite file
// passes its integrity check, and the store works: an account is created and a fax sent to
// delivered through the API. On SQLite always; on PostgreSQL when its binaries are there (in CI
// they must be). Seeded: FAXSTACK_CRASH_SEED replays a run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { withPgServer } from '../store/engines.js';
import { BIN, ROOT, crashSeed, kill9, pause, processScratch, prng, startProc, waitFor, type Proc } from './crash-kit.js';
import { NUM, callApi, inline } from './harness.js';

const ROUNDS = 8;
const PAUSE_MS = 800;
const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

interface Engine {
  /** serve's arguments for this store. */
  args: string[];
  /** `accounts create`'s store arguments. */
  storeArgs: string[];
  /** Every row of schema_migrations (none when the table or the database file is not there yet). */
  versions(): Promise<number[]>;
}

const scratch = processScratch<Proc>('faxstack-e2e-crash-migration-');
const procs = scratch.procs;

async function killDuringFirstStart(eng: Engine, label: string): Promise<void> {
  const seed = crashSeed(`crash-migration ${label}`);
  const { rnd, int } = prng(seed);
  const log: string[] = [];
  let mid = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const before = Math.max(0, ...(await eng.versions()));
    // A quarter of the kills at a random moment of the start (often before any migration ran),
    // the rest inside the transaction of one of the next three pending migrations, so the
    // rounds walk through the migrations.
    const target = before < LATEST && rnd() >= 0.25 ? int(before + 1, Math.min(LATEST, before + 3)) : null;
    const p = await startProc('serve', { args: eng.args, env: { FAXSTACK_TEST_MIGRATION_PAUSE_MS: String(PAUSE_MS) }, noWait: true });
    procs.push(p);
    if (target === null) await pause(int(0, 1500));
    else {
      await waitFor(() => {
        if (p.child.exitCode !== null) throw new Error(`serve exited (seed ${seed}):\n${p.stderr()}`);
        return p.stderr().includes(`test pause in migration ${target}\n`);
      }, 60_000, `migration ${target} to start (seed ${seed})`, 10);
      await pause(int(0, PAUSE_MS / 4)); // well inside the pause, even on a loaded machine
    }
    await kill9(p);
    const after = await eng.versions();
    const top = Math.max(0, ...after);
    log.push(`${target === null ? 'start' : `m${target}`}:${before}->${top}`);
    expect(top, `a kill never loses a committed migration (seed ${seed})`).toBeGreaterThanOrEqual(before);
    expect(new Set(after).size, `each version once (seed ${seed})`).toBe(after.length);
    if (target !== null) {
      // The killed transaction left nothing: every migration before it is there, it is not.
      expect(top, `killed in migration ${target} (seed ${seed}, ${log.join(' ')})`).toBe(target - 1);
      mid++;
    }
  }
  console.log(`[crash-migration ${label}] seed ${seed}: ${log.join(' ')} (${mid} kills mid-migration)`);

  // A clean start migrates to the latest version, each version once.
  const p = await startProc('serve', { args: eng.args });
  procs.push(p);
  const versions = await eng.versions();
  expect(versions.sort((a, b) => a - b), `seed ${seed}`).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));

  // The store works: a new account sends a fax to delivered.
  const created = spawnSync(process.execPath, [BIN, 'accounts', 'create', 'after-crash', ...eng.storeArgs, '--json', '--balance', '10'], { cwd: ROOT, encoding: 'utf8' });
  expect(created.status, created.stderr).toBe(0);
  const acct = JSON.parse(created.stdout.trim().split('\n').pop()!) as { testKey: string };
  const sent = await callApi<{ jobId: number }>(`${p.api}/customer/fax-send`, { key: acct.testKey, json: { faxNumber: NUM.ok, faxData: [inline(2)] } });
  expect(sent.http, sent.raw).toBe(200);
  const done = await waitFor(async () => {
    const r = await callApi<{ faxStatus: string; faxTransferredPages: number }>(`${p.api}/customer/fax-status`, { key: acct.testKey, query: { jobId: sent.body.data.jobId } });
    return r.body.data.faxStatus === 'delivered' || r.body.data.faxStatus === 'failed' ? r.body.data : undefined;
  }, 60_000, `the fax to finish (seed ${seed})`, 100);
  expect(done).toMatchObject({ faxStatus: 'delivered', faxTransferredPages: 2 });
  p.child.kill('SIGTERM');
  await p.exited;
}

describe('kill -9 mid-migration: SQLite', () => {
  it('killed during its first start again and again, then a clean start migrates once to the latest version and works', async () => {
    const data = join(scratch.root, 'sqlite');
    const file = join(data, 'faxstack.db');
    const eng: Engine = {
      args: ['--port', '0', '--data', data],
      storeArgs: ['--data', data],
      async versions() {
        if (!existsSync(file)) return [];
        // A reader beside the writer (WAL): it sees committed migrations only.
        const db = new Database(file, { readonly: true, fileMustExist: true });
        try {
          const t = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
          return t ? (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version) : [];
        } finally {
          db.close();
        }
      },
    };
    await killDuringFirstStart(eng, 'sqlite');
    // The file is consistent: integrity and foreign keys.
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
    } finally {
      db.close();
    }
  }, 150_000);
});

withPgServer({ name: 'kill -9 mid-migration: PostgreSQL', what: 'crash-migration e2e', placeholder: 'killed during its first start' }, (server) => {
  describe('kill -9 mid-migration: PostgreSQL', () => {
    it('killed during its first start again and again, then a clean start migrates once to the latest version and works', async () => {
      const url = await server.createDatabase();
      const eng: Engine = {
        args: ['--port', '0', '--data', join(scratch.root, 'pg-api'), '--store', url],
        storeArgs: ['--store', url],
        async versions() {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          try {
            const t = await c.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
            if (!(t.rows[0] as { present: boolean }).present) return [];
            return (await c.query('SELECT version FROM schema_migrations')).rows.map((r: { version: string }) => Number(r.version));
          } finally {
            await c.end();
          }
        },
      };
      await killDuringFirstStart(eng, 'postgres');
    }, 150_000);
  });
});
