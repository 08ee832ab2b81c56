// The pages a draw worker (draw-worker.ts) hands the calling thread (draw-beside.ts): a ring of
// SLOTS gray pages in one SharedArrayBuffer, filled by the worker in turn and read by the calling
// thread in the same turn, with a few Int32 counters beside them — no message per page, nothing
// copied on the reading side, and the worker never waits for the calling thread's event loop.

/** Gray pages in flight: one being read, one written, one ready (the threads' pages take 3–5 ms each). */
export const SLOTS = 3;

/** Int32 words of the state: the worker's status, pages published and consumed, then each slot's record. */
const STATUS = 0;
const PUBLISHED = 1;
const CONSUMED = 2;
const RECORD = 5;
const HEADER = 3;

/** The worker's status: running; Done, every page it claimed published; Stopped, the page it was on given back and no more claimed. */
export const DrawStatus = { Running: 0, Done: 1, Stopped: 2 } as const;
export type DrawStatus = (typeof DrawStatus)[keyof typeof DrawStatus];

/** One published fax page: a part of a PDF page, or (`width` 0) a page given back to the reader. */
export interface DrawnRecord {
  /** Index in the selection (PageQueue). */
  index: number;
  part: number;
  parts: number;
  width: number;
  height: number;
}

export class DrawRing {
  readonly state: Int32Array;
  readonly pixels: Uint8Array;

  constructor(
    /** Bytes of one slot: the largest gray page it takes (larger ones are given back). */
    readonly slotBytes: number,
    shared?: { state: Int32Array; pixels: Uint8Array },
  ) {
    this.state = shared?.state ?? new Int32Array(new SharedArrayBuffer(4 * (HEADER + SLOTS * RECORD)));
    this.pixels = shared?.pixels ?? new Uint8Array(new SharedArrayBuffer(SLOTS * slotBytes));
  }

  status(): DrawStatus {
    return Atomics.load(this.state, STATUS) as DrawStatus;
  }

  setStatus(s: DrawStatus): void {
    Atomics.store(this.state, STATUS, s);
    Atomics.notify(this.state, PUBLISHED);
  }

  /** Pages published so far (the reader waits on it: waitPublished). */
  published(): number {
    return Atomics.load(this.state, PUBLISHED);
  }

  // The writer's side (draw-worker.ts).

  /** Publishes a gray page (or, `gray` undefined, gives `index` back) once a slot is free; blocks the writer until then. */
  publish(r: DrawnRecord, gray?: Uint8Array): void {
    const n = Atomics.load(this.state, PUBLISHED);
    for (let c = Atomics.load(this.state, CONSUMED); n - c >= SLOTS; c = Atomics.load(this.state, CONSUMED)) Atomics.wait(this.state, CONSUMED, c);
    const s = n % SLOTS;
    if (gray) this.pixels.set(gray, s * this.slotBytes);
    const at = HEADER + s * RECORD;
    this.state.set([r.index, r.part, r.parts, gray ? r.width : 0, r.height], at);
    Atomics.store(this.state, PUBLISHED, n + 1);
    Atomics.notify(this.state, PUBLISHED);
  }

  // The reader's side (draw-beside.ts): take() the next page, read it, release() it.

  private taken = 0;

  /** The next published page and its pixels (a view of the slot, valid until release()); undefined when none is waiting. */
  take(): { record: DrawnRecord; gray: Uint8Array } | undefined {
    if (this.taken >= Atomics.load(this.state, PUBLISHED)) return undefined;
    const s = this.taken % SLOTS;
    const at = HEADER + s * RECORD;
    const [index, part, parts, width, height] = this.state.subarray(at, at + RECORD) as unknown as number[];
    const record: DrawnRecord = { index: index!, part: part!, parts: parts!, width: width!, height: height! };
    return { record, gray: this.pixels.subarray(s * this.slotBytes, s * this.slotBytes + record.width * record.height) };
  }

  /** The page take() returned is read: its slot is the writer's again. */
  release(): void {
    this.taken++;
    Atomics.store(this.state, CONSUMED, this.taken);
    Atomics.notify(this.state, CONSUMED);
  }

  /** Resolves when a page is published after those taken, the status changes, or after `ms`. */
  async waitPublished(ms: number): Promise<void> {
    const n = Atomics.load(this.state, PUBLISHED);
    if (n > this.taken) return;
    const w = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: boolean; value: Promise<string> | string } }).waitAsync(this.state, PUBLISHED, n, ms);
    if (w.async) await w.value;
  }
}
