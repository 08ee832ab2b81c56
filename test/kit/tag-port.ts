// A test AudioPort for the pump tests (test kit: never shipped): each block it sends is filled
// with a tag — the block's number, as a sample value every codec carries exactly (a G.711
// reconstruction level) — and it records what it hears, so a test can check that each side's
// received timeline is the other side's sent one, with silence (0) where frames were lost.
import { ALAW_TO_LINEAR, ULAW_TO_LINEAR } from '../../native-free-dsp/index.js';
import type { AudioCodecName, AudioPort } from '../../src/transport/rtp/index.js';

/** The sample value of tag k ≥ 1 on `codec`: distinct for 127 tags in a row, never 0. */
export function tagValue(codec: AudioCodecName, k: number): number {
  if (codec === 'pcm') return k;
  return codec === 'pcmu' ? ULAW_TO_LINEAR[0x80 + ((k - 1) % 127)]! : ALAW_TO_LINEAR[0x80 + ((k - 1) % 128)]!;
}

export class TagPort implements AudioPort {
  /** The first sample of each block heard. */
  readonly blocks: number[] = [];
  /** Every sample heard, runs of one value collapsed to one entry. */
  readonly runs: number[] = [];
  /** Tags sent so far (block k was filled with tag k). */
  sent = 0;
  /** Called after each block with the number of blocks processed. */
  onBlock: ((blocks: number) => void) | undefined;
  /** Throws from process() once this many blocks were processed. */
  failAfter = Infinity;

  constructor(readonly codec: AudioCodecName) {}

  process(rx: Int16Array, tx: Int16Array): void {
    if (this.blocks.length >= this.failAfter) throw new Error('port broke');
    this.blocks.push(rx[0]!);
    for (const v of rx) if (this.runs[this.runs.length - 1] !== v) this.runs.push(v);
    tx.fill(tagValue(this.codec, ++this.sent));
    this.onBlock?.(this.blocks.length);
  }

  /** The tags 1..n as sample values. */
  tags(from: number, to: number): number[] {
    return Array.from({ length: to - from + 1 }, (_, i) => tagValue(this.codec, from + i));
  }
}
