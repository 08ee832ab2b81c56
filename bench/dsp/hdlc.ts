// The HDLC part of bench/dsp.ts: the framer and the deframer, each over the same stream as
// dsp_bench.c's hdlc-tx / hdlc-rx (32-octet frames, one flag between them, the framer fed by its
// underflow report); a unit is one line bit. Also counted by bench/dsp/instructions.ts.
import { HdlcRx, HdlcTx } from '../../native-free-dsp/index.js';

const BLOCK = 160;
const LINE_BITS = 10 * 8000;

/** Same shape as bench/dsp.ts's Case (input 'none': these make their own bits). */
export interface HdlcCase {
  name: string;
  unit: 'bits';
  input: 'none';
  make: () => (audio: Int16Array) => void;
}

/** dsp_bench.c's framer: one 32-octet frame sent again and again, one flag between them. */
function framer(): HdlcTx {
  const frame = Uint8Array.from({ length: 32 }, (_, i) => (i < 3 ? [0xff, 0x03, 0x40][i]! : i - 2));
  const h = new HdlcTx({ preambleFlags: 1, onStatus: (s) => s.kind === 'underflow' && h.sendFrame(frame) });
  h.sendFrame(frame);
  return h;
}

export const HDLC_CASES: HdlcCase[] = [
  {
    name: 'hdlc-tx',
    unit: 'bits',
    input: 'none',
    make: () => {
      const h = framer();
      let sink = 0;
      return () => {
        // Locals (the framer and the sum), as dsp_bench.c's loop has its state pointer in a
        // register: a captured variable is reloaded from the closure's context on every bit.
        const tx = h;
        let acc = 0;
        for (let i = 0; i < BLOCK; i++) acc += tx.getBit();
        sink += acc;
      };
    },
  },
  {
    name: 'hdlc-rx',
    unit: 'bits',
    input: 'none',
    make: () => {
      const h = framer();
      const bits = Uint8Array.from({ length: LINE_BITS }, () => h.getBit());
      let frames = 0;
      const rx = new HdlcRx({ onFrame: () => void frames++ });
      let pos = 0;
      const n = bits.length;
      return () => {
        // Locals, so that the loop costs what dsp_bench.c's does (an index and a compare with a
        // constant, the state pointer in a register): the index known to be a small integer
        // (`| 0`; a bare `pos` left it of unknown type, checked in every iteration), the length
        // read once, and the deframer, the bits and the length out of the closure's context —
        // captured, each was reloaded and checked (Smi tag, map) on every bit, about a third of
        // the loop's instructions (--print-opt-code).
        const r = rx;
        const b = bits;
        const len = n | 0;
        let p = pos | 0;
        for (let i = 0; i < BLOCK; i++) {
          r.putBit(b[p]!);
          if (++p === len) p = 0;
        }
        pos = p;
      };
    },
  },
  {
    // The same stream five bits at a time (a V.17 12000 symbol), MSB first, as the audio front
    // end's ECM receiver hands it over (src/transport/audio/audio-rx.ts fastWord): putWord, and
    // the rest of a word after a flag bit by bit.
    name: 'hdlc-rx-word',
    unit: 'bits',
    input: 'none',
    make: () => {
      const h = framer();
      const words = new Int32Array(LINE_BITS / 5);
      for (let w = 0; w < words.length; w++) for (let k = 0; k < 5; k++) words[w] = (words[w]! << 1) | h.getBit();
      let frames = 0;
      const rx = new HdlcRx({ onFrame: () => void frames++ });
      let pos = 0;
      const n = words.length;
      return () => {
        const r = rx;
        const ws = words;
        const len = n | 0;
        let p = pos | 0;
        for (let i = 0; i < BLOCK / 5; i++) {
          const w = ws[p]!;
          for (let k = 4 - r.putWord(w, 5); k >= 0; k--) r.putBit((w >>> k) & 1);
          if (++p === len) p = 0;
        }
        pos = p;
      };
    },
  },
];
