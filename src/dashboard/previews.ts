// Send previews of the dashboard: a fax rendered before it is a job, kept in memory until the
// user confirms it or it expires. Bounded on every side: a lifetime, a few per account, a byte
// budget for the whole process (uploads plus PNG pages). Per process: a confirm that lands on
// another node behind the same address finds no preview and asks for a new one.
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

export interface PreviewLimits {
  ttlMs: number;
  perAccount: number;
  maxBytes: number;
}

export const PREVIEW_LIMITS: PreviewLimits = { ttlMs: 15 * 60_000, perAccount: 3, maxBytes: 128 * 1024 * 1024 };

const sizeOf = (p: Preview) => p.input.files.reduce((s, f) => s + (f.data?.length ?? 0), 0) + p.pngs.reduce((s, b) => s + b.length, 0);

export class PreviewStore {
  private readonly items = new Map<string, Preview>();
  private bytes = 0;

  constructor(private readonly clock: Clock, private readonly limits: PreviewLimits = PREVIEW_LIMITS) {}

  /** Keeps a preview; the account's oldest goes when it has too many; refused when the process is full. */
  add(p: Omit<Preview, 'id' | 'createdAtMs'>): Preview {
    this.sweep();
    const mine = [...this.items.values()].filter((x) => x.accountId === p.accountId);
    for (const old of mine.slice(0, Math.max(0, mine.length - this.limits.perAccount + 1))) this.remove(old.id);
    const full: Preview = { ...p, id: randomBytes(16).toString('base64url'), createdAtMs: this.clock.now() };
    if (this.bytes + sizeOf(full) > this.limits.maxBytes) {
      throw new FaxError('RATE_LIMITED', 'too many previews are waiting on this server: try again in a few minutes');
    }
    this.items.set(full.id, full);
    this.bytes += sizeOf(full);
    return full;
  }

  /** The account's preview, or NOT_FOUND (another account's id is the same as an unknown one). */
  get(accountId: number, id: string): Preview {
    this.sweep();
    const p = this.items.get(id);
    if (!p || p.accountId !== accountId) throw new FaxError('NOT_FOUND', 'this preview expired or does not exist: upload the files again');
    return p;
  }

  /** Removes and returns the preview (confirming it twice sends it once). */
  take(accountId: number, id: string): Preview {
    const p = this.get(accountId, id);
    this.remove(id);
    return p;
  }

  get size(): number {
    return this.items.size;
  }

  private remove(id: string): void {
    const p = this.items.get(id);
    if (!p) return;
    this.items.delete(id);
    this.bytes -= sizeOf(p);
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const p of this.items.values()) if (now - p.createdAtMs > this.limits.ttlMs) this.remove(p.id);
  }
}
