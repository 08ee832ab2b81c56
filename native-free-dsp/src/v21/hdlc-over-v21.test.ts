// T.30's control channel end to end: HDLC frames with a 1 s flag preamble → V.21 channel 2 →
// impaired line → V.21 receiver → HDLC deframer. Frames come out with their FCS checked; a frame
// with a bit flipped on the way is reported with crcOk false and the frames around it survive.
import { describe, expect, it } from 'vitest';
import { END_OF_DATA, type ModemRxStatus } from '../common/types.js';
import { HdlcRx, type HdlcFrame, type HdlcRxStatus } from '../hdlc/hdlc-rx.js';
import { HdlcTx } from '../hdlc/hdlc-tx.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { V21Rx, V21Tx } from './v21.js';

// T.30 frames: address 0xff, control 0x03 (non-final) / 0x13 (final), FCF, information.
const CSI = Uint8Array.of(0xff, 0x03, 0x40, ...new TextEncoder().encode(' 1234 567 8901 2345'.padStart(20, ' ')));
const DIS = Uint8Array.of(0xff, 0x13, 0x80, 0x00, 0xce, 0xf4, 0x80, 0x80, 0x81, 0x80, 0x80);
const NSF = Uint8Array.of(0xff, 0x03, 0x20, ...Array.from({ length: 40 }, (_, i) => (i * 37) & 0xff));

interface Run {
  frames: HdlcFrame[];
  hdlcStatus: HdlcRxStatus[];
  modemStatus: ModemRxStatus[];
}

function send(frames: Uint8Array[], line: LineModelOptions, flipBit = -1): Run {
  const hdlcTx = new HdlcTx({ bitRate: 300 });
  for (const f of frames) hdlcTx.sendFrame(f);
  hdlcTx.end();
  let bitNo = 0;
  const getBit = (): number => {
    const b = hdlcTx.getBit();
    return b !== END_OF_DATA && bitNo++ === flipBit ? b ^ 1 : b;
  };
  const tx = new V21Tx({ levelDbm0: -13, getBit });
  const out: Run = { frames: [], hdlcStatus: [], modemStatus: [] };
  const hdlcRx = new HdlcRx({ onFrame: (f) => out.frames.push(f), onStatus: (s) => out.hdlcStatus.push(s) });
  const rx = new V21Rx({ putBit: hdlcRx.putBit, onStatus: (s) => out.modemStatus.push(s) });
  const lm = new LineModel(line);
  const buf = new Int16Array(160);
  rx.rx(new Int16Array(1600)); // 200 ms of silence before the carrier
  let n: number;
  do {
    n = tx.tx(buf);
    buf.fill(0, n);
    lm.process(buf, buf);
    rx.rx(buf);
  } while (n === buf.length);
  // The line goes quiet (its noise too, which at 6 dB SNR would hold the carrier up).
  rx.rx(new Int16Array(1600));
  return out;
}

const LINES: { name: string; line: LineModelOptions }[] = [
  { name: 'clean', line: {} },
  { name: '6 dB SNR', line: { snrDb: 6, signalDbm0: -13, seed: 11 } },
  { name: 'µ-law hop, −20 dB, 10 Hz offset, 10 dB SNR', line: { gainDb: -20, snrDb: 10, signalDbm0: -13, freqOffsetHz: 10, codec: 'ulaw', seed: 12 } },
];

describe.each(LINES)('HDLC over V.21 ($name)', ({ line }) => {
  it('delivers NSF, CSI, DIS with good FCS after the preamble', () => {
    const r = send([NSF, CSI, DIS], line);
    expect(r.modemStatus).toEqual(['carrierUp', 'carrierDown']);
    expect(r.hdlcStatus).toEqual([{ kind: 'framing-ok' }]);
    expect(r.frames).toEqual([
      { frame: NSF, crcOk: true },
      { frame: CSI, crcOk: true },
      { frame: DIS, crcOk: true },
    ]);
  });

  it('reports a frame corrupted on the way with crcOk false, and the others intact', () => {
    // The CSI's 4th octet is 0x20 (no stuffing near): flip its bit 3. Preamble = 38 flags.
    const bit = 38 * 8 + (NSF.length + 2) * 8 + countStuffed(NSF) + 8 + 3 * 8 + 3;
    const r = send([NSF, CSI, DIS], line, bit);
    expect(r.frames.map((f) => f.crcOk)).toEqual([true, false, true]);
    expect(r.frames[0]!.frame).toEqual(NSF);
    expect(r.frames[2]!.frame).toEqual(DIS);
    expect(r.frames[1]!.frame.length).toBe(CSI.length);
  });
});

/** Zero bits the framer inserts into a frame and its FCS (for locating bits in the stream). */
function countStuffed(frame: Uint8Array): number {
  const hdlc = new HdlcTx({ preambleFlags: 0 });
  hdlc.sendFrame(frame);
  hdlc.end();
  let n = 0;
  for (let b = hdlc.getBit(); b !== END_OF_DATA; b = hdlc.getBit()) n++;
  // total = 8 (opening flag) + payload bits + stuffed + 8 (closing flag)
  return n - 16 - (frame.length + 2) * 8;
}
