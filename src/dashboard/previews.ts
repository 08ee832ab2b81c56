// Send previews of the dashboard: a fax rendered before it is a job, kept in memory until the
// user confirms it or it expires; and the uploads of a send form that came back with an error
// (a draft), so the user need not choose the files again. Bounded on every side, both kinds
// together: a lifetime, a few per account, a byte budget for the whole process (uploads plus
// PNG pages). Per process: a confirm that lands on another node behind the same address finds
// no preview and asks for a new one.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import type { KeyMode } from '../store/index.js';
import type { SendInput } from '../jobs/index.js';

export interface Preview {
  id: string;
  accountId: number;
  mode: KeyMode;
  createdAtMs: number;
  input: SendInput;
  /** The first pages as they will be transmitted (to the first recipient), PNG. */
  pngs: Buffer[];
  /** Pages of the whole fax. */
  totalPages: number;
  files: { fileName: string; pages: number }[];
  /** Names of the cover-page template and the smart document, when chosen. */
  template: string | null;
  smartDocument: string | null;
}

/** Files of a send form kept after an error, under an id the form carries back. */
export interface Draft {
  id: string;
  accountId: number;
  createdAtMs: number;
  files: { fileName: string; data: Buffer }[];
}

interface PreviewLimits {
  ttlMs: number;
  perAccount: number;
  maxBytes: number;
}

export const PREVIEW_LIMITS: PreviewLimits = { ttlMs: 15 * 60_000, perAccount: 3, maxBytes: 128 * 1024 * 1024 };

type Entry = { kind: 'preview'; value: Preview } | { kind: 'draft'; value: Draft };

const sizeOf = (e: Entry) => e.kind === 'draft'
  ? e.value.files.reduce((s, f) => s + f.data.length, 0)
  : e.value.input.files.reduce((s, f) => s + (f.data?.length ?? 0), 0) + e.value.pngs.reduce((s, b) => s + b.length, 0);

const GONE = 'this preview expired or does not exist: upload the files again';

export class PreviewStore {
  private readonly items = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly clock: Clock, private readonly limits: PreviewLimits = PREVIEW_LIMITS) {}

  /** Keeps a preview; the account's oldest entry goes when it has too many; refused when the process is full. */
  add(p: Omit<Preview, 'id' | 'createdAtMs'>): Preview {
    const full: Preview = { ...p, id: randomBytes(16).toString('base64url'), createdAtMs: this.clock.now() };
    this.keep({ kind: 'preview', value: full });
    return full;
  }

  /** Keeps the files of a refused send form (same bounds as previews). */
  addDraft(accountId: number, files: Draft['files']): Draft {
    const full: Draft = { id: randomBytes(16).toString('base64url'), accountId, createdAtMs: this.clock.now(), files };
    this.keep({ kind: 'draft', value: full });
    return full;
  }

  private keep(e: Entry): void {
    this.sweep();
    const mine = [...this.items.values()].filter((x) => x.value.accountId === e.value.accountId);
    for (const old of mine.slice(0, Math.max(0, mine.length - this.limits.perAccount + 1))) this.remove(old.value.id);
    if (this.bytes + sizeOf(e) > this.limits.maxBytes) {
      throw new FaxError('RATE_LIMITED', 'too many previews are waiting on this server: try again in a few minutes');
    }
    this.items.set(e.value.id, e);
    this.bytes += sizeOf(e);
  }

  /** The account's preview, or NOT_FOUND (another account's id is the same as an unknown one). */
  get(accountId: number, id: string): Preview {
    this.sweep();
    const e = this.items.get(id);
    if (!e || e.kind !== 'preview' || e.value.accountId !== accountId) throw new FaxError('NOT_FOUND', GONE);
    return e.value;
  }

  /** The account's draft, or null when it expired, is unknown or another account's. */
  draft(accountId: number, id: string): Draft | null {
    this.sweep();
    const e = this.items.get(id);
    return e && e.kind === 'draft' && e.value.accountId === accountId ? e.value : null;
  }

  /** Removes and returns the preview (confirming it twice sends it once). */
  take(accountId: number, id: string): Preview {
    const p = this.get(accountId, id);
    this.remove(id);
    return p;
  }

  /** Forgets a draft of the account (its files became a preview). */
  dropDraft(accountId: number, id: string): void {
    if (this.draft(accountId, id)) this.remove(id);
  }

  get size(): number {
    return this.items.size;
  }

  private remove(id: string): void {
    const e = this.items.get(id);
    if (!e) return;
    this.items.delete(id);
    this.bytes -= sizeOf(e);
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const e of this.items.values()) if (now - e.value.createdAtMs > this.limits.ttlMs) this.remove(e.value.id);
  }
}
