// ECM pages put back together as a listener hears them (T.4 Annex A, T.30 5.3.6): FCD frames
// collect by frame number until a PPS names their page and block; frames sent again after a
// PPR fill the holes; a page is whole once its PPS-Q (MPS/EOP/EOM) is confirmed, or when the
// call moves on. The result is the page's coded data in the codecs' bit order.
import { reverseBits } from '../codecs/index.js';
import { parseFrame, type Dcs, type ModemSpec, type PostMessage } from '../t30/index.js';
import type { BurstEvent, Side } from './line-events.js';

/** A page as far as it came. */
export interface EcmPageData {
  /** Where its first frame's burst began. */
  atMs: number;
  from: Side;
  modem: ModemSpec;
  training?: 'long' | 'short';
  dcs: Dcs;
  /** T.4/T.6 data, first bit in the MSB: the frames' payloads in order, holes left out (T.6: up to the first hole). */
  data: Uint8Array;
  frames: number;
  missingFrames: number;
}

interface Block {
  frames: Map<number, Uint8Array>;
  /** Frames in the block, from its PPS. */
  count?: number;
}

interface Page {
  blocks: Map<number, Block>;
  lastBlock?: number;
  atMs: number;
  from: Side;
  modem: ModemSpec;
  training?: 'long' | 'short';
  dcs: Dcs;
}

const FRAMES_PER_BLOCK = 256;

export class EcmPages {
  /** Frames since the last PPS, by frame number. */
  private pending = new Map<number, Uint8Array>();
  private pendingBad = 0;
  private pendingSince: BurstEvent | undefined;
  private readonly pages = new Map<number, Page>();
  /** The page whose PPS-Q was the last post-message command. */
  private closing: number | undefined;

  /** The FCD frames of a high-speed burst. */
  burst(b: BurstEvent): void {
    for (const f of b.frames) {
      if (!f.crcOk) {
        this.pendingBad++;
        continue;
      }
      const p = parseFrame(f.frame);
      // FCD: address, control 0x03, FCF 0x06, frame number, data (T.4 Annex A).
      if (p?.name !== 'FCD' || p.info.length < 1) continue;
      this.pending.set(p.info[0]!, p.info.subarray(1));
      this.pendingSince ??= b;
    }
  }

  /** Frames heard since the last PPS: with a good FCS, and bad. */
  get heard(): { good: number; bad: number } {
    return { good: this.pending.size, bad: this.pendingBad };
  }

  /**
   * A PPS closed a block: its frames go to their page; a PPS-Q marks the page's last block.
   * Returns a page that is complete because this PPS is for another one.
   */
  blockEnds(pageNo: number, blockNo: number, frames: number, fcf2: PostMessage, atMs: number, from: Side, dcs: Dcs): EcmPageData[] {
    const done = this.closing !== undefined && this.closing !== pageNo ? this.finish(this.closing) : [];
    let page = this.pages.get(pageNo);
    if (!page) {
      const b = this.pendingSince;
      page = { blocks: new Map(), atMs: b?.atMs ?? atMs, from, modem: b?.modem ?? dcs.modem, ...(b?.training ? { training: b.training } : {}), dcs };
      this.pages.set(pageNo, page);
    }
    let block = page.blocks.get(blockNo);
    if (!block) page.blocks.set(blockNo, (block = { frames: new Map() }));
    block.count = frames;
    for (const [n, data] of this.pending) if (n < frames) block.frames.set(n, data);
    this.pending = new Map();
    this.pendingBad = 0;
    this.pendingSince = undefined;
    if (fcf2 !== 'NULL') {
      page.lastBlock = blockNo;
      this.closing = pageNo;
    }
    return done;
  }

  /** MCF: the page whose PPS-Q was answered is complete. */
  confirmed(): EcmPageData[] {
    return this.closing === undefined ? [] : this.finish(this.closing);
  }

  /**
   * The call moved on (a new DCS, DCN, the end of the capture): every open page as it is.
   * Frames no PPS accounted for are filed under the next block (`orphans` says how many).
   */
  flush(atMs: number, from: Side, dcs: Dcs | undefined): { pages: EcmPageData[]; orphans: number } {
    const orphans = this.pending.size;
    const out: EcmPageData[] = [];
    if (orphans > 0 && dcs) {
      const open = [...this.pages.entries()];
      const [pageNo, page] = open.length ? open[open.length - 1]! : [this.closing ?? 0, undefined];
      const nextBlock = page ? Math.max(...page.blocks.keys()) + 1 : 0;
      out.push(...this.blockEnds(pageNo, nextBlock, Math.max(...this.pending.keys()) + 1, 'NULL', atMs, from, dcs));
    }
    this.pending = new Map();
    this.pendingBad = 0;
    for (const pageNo of [...this.pages.keys()].sort((a, b) => a - b)) out.push(...this.finish(pageNo));
    this.closing = undefined;
    return { pages: out, orphans };
  }

  private finish(pageNo: number): EcmPageData[] {
    const p = this.pages.get(pageNo);
    if (this.closing === pageNo) this.closing = undefined;
    if (!p) return [];
    this.pages.delete(pageNo);
    const last = p.lastBlock ?? Math.max(...p.blocks.keys());
    const parts: Uint8Array[] = [];
    const mmr = p.dcs.coding === 'mmr';
    let missing = 0;
    let received = 0;
    let size = 0;
    for (let b = 0; b <= last; b++) {
      const block = p.blocks.get(b);
      if (!block) {
        missing += FRAMES_PER_BLOCK;
        continue;
      }
      const count = block.count ?? Math.max(-1, ...block.frames.keys()) + 1;
      for (let n = 0; n < count; n++) {
        const f = block.frames.get(n);
        if (f) received++;
        if (!f) missing++;
        // T.4 resynchronises at the next EOL after a hole; T.6 cannot: its page ends at the first.
        else if (!(missing && mmr)) (parts.push(f), (size += f.length));
      }
    }
    const hdlc = new Uint8Array(size);
    let at = 0;
    for (const f of parts) (hdlc.set(f, at), (at += f.length));
    const { blocks: _b, lastBlock: _l, ...info } = p;
    // FCD payloads are in HDLC order (first bit in bit 0); the codecs read MSB first.
    return [{ ...info, data: reverseBits(hdlc), frames: received, missingFrames: missing }];
  }
}
