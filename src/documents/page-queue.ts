// One selection's pages shared by the threads that render it together (faxstack render: the
// calling thread takes them from the front, render workers from the back, docs/cli.md): each page
// is claimed once, through one Int32 of a SharedArrayBuffer, so none is drawn twice or left out.

/** Which end of the selection a thread takes its pages from. */
export type QueueEnd = 'front' | 'back';

/** Most pages a queue holds (two 16-bit counts in one Int32; a fax has at most 200). */
const MAX_QUEUE_PAGES = 0x7fff;

/**
 * Claims on a selection of `length` pages: how many the front and the back have taken, packed in
 * state[0]; state[1 + h] is set by helper h when it starts claiming (see started()).
 */
export class PageQueue {
  readonly state: Int32Array;

  constructor(
    readonly length: number,
    helpers: number,
    state?: Int32Array,
  ) {
    if (!Number.isInteger(length) || length < 0 || length > MAX_QUEUE_PAGES) throw new RangeError(`length must be an integer in 0..${MAX_QUEUE_PAGES}, got ${length}`);
    this.state = state ?? new Int32Array(new SharedArrayBuffer(4 * (1 + helpers)));
  }

  /** The next selection index from this end (the front ascending, the back descending); -1 when every page is claimed. */
  claim(end: QueueEnd): number {
    for (;;) {
      const v = Atomics.load(this.state, 0);
      const front = v & 0xffff;
      const back = v >>> 16;
      if (front + back >= this.length) return -1;
      if (Atomics.compareExchange(this.state, 0, v, end === 'front' ? v + 1 : v + 0x10000) === v) return end === 'front' ? front : this.length - 1 - back;
    }
  }

  /** Pages claimed from the back so far. */
  claimedByBack(): number {
    return Atomics.load(this.state, 0) >>> 16;
  }

  /** Helper `h` is running: marked before its first claim. */
  markStarted(h: number): void {
    Atomics.store(this.state, 1 + h, 1);
  }

  /** Whether helper `h` has started (a helper not started once every page is claimed will claim none). */
  started(h: number): boolean {
    return Atomics.load(this.state, 1 + h) === 1;
  }
}

/**
 * The pages one thread draws, claimed from the queue one at a time as the renderer walks its
 * page list (render-pdf.ts iterates it once, in order, with for…of): a page is claimed just
 * before it is drawn. Holds the pages claimed so far; `indices` are their places in the selection.
 */
export class ClaimedPages extends Array<number> {
  /** map/slice/filter make plain arrays (render-pdf.ts hands pdfjs the pages claimed and not yet done). */
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  readonly indices: number[] = [];

  constructor(
    private readonly selection: readonly number[],
    private readonly queue: PageQueue,
    private readonly end: QueueEnd,
    /** Called with each page as it is claimed (the budget's startPage). */
    private readonly onClaim?: (page: number) => void,
  ) {
    super();
  }

  override *[Symbol.iterator](): ArrayIterator<number> {
    for (let i = 0; ; i++) {
      if (i === this.length) {
        const k = this.queue.claim(this.end);
        if (k < 0) return undefined;
        this.indices.push(k);
        this.push(this.selection[k]!);
        this.onClaim?.(this.selection[k]!);
      }
      yield this[i]!;
    }
  }
}
