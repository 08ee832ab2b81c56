// Outputs of the blocks issue 17 made faster, hashed against what they were before (session 13's
// start, 1e8473c): HDLC line bits and status events (CRC 16/32, random, all-ones and mixed frames,
// 1 or 5 flags between frames, frames queued ahead / from the underflow report / aborted / ended),
// the deframer's frames, events and counts on those streams clean, with bit errors and with
// inserted aborts; every G.711 code and every 16-bit sample, at odd offsets and lengths; V.27 ter
// and V.29 TX audio and status events (every rate, data ending mid-symbol, buffers of 1, 7 and 161
// samples, long and short training); V.17 TX audio and events (every rate, long and short training,
// the echo protection tone, bits or words; since fedda57); PRBS bits and BerTester counts through
// errors and a resync.
// A speed-up must leave every hash as it is: these are the "bit-identical" of the issue, kept.
import { describe, expect, it } from 'vitest';
import { BerTester, PrbsGenerator, type PrbsPattern } from './src/ber/prbs.js';
import { END_OF_DATA, WORD_END } from './src/common/types.js';
import { alawDecode, alawEncode, ulawDecode, ulawEncode } from './src/g711/g711.js';
import { HdlcRx } from './src/hdlc/hdlc-rx.js';
import { HdlcTx } from './src/hdlc/hdlc-tx.js';
import { V27terTx } from './src/v27ter/v27ter-tx.js';
import { V17Tx } from './src/v17/v17-tx.js';
import { V29Tx } from './src/v29/v29-tx.js';
import { valuesHash as hash } from '../test/kit/golden-hash.js';

/** Frames from a small LCG: random octets, all ones (stuffing everywhere) or a mix. */
function frames(seed: number, count: number, maxLen: number, kind: 'rand' | 'ones' | 'mixed'): Uint8Array[] {
  let s = seed >>> 0;
  const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16;
  return Array.from({ length: count }, () => {
    const f = new Uint8Array(1 + (rnd() % maxLen));
    for (let k = 0; k < f.length; k++) f[k] = kind === 'ones' ? 0xff : kind === 'mixed' ? (rnd() & 1 ? 0xff : rnd() & 0xff) : rnd() & 0xff;
    return f;
  });
}

type Mode = 'queue' | 'underflow' | 'abort' | 'end';

/** The framer's line bits (up to 20 000, and the END_OF_DATA after an end) and its events with the bit count at each. */
function framerRun(crcBits: 16 | 32, kind: 'rand' | 'ones' | 'mixed', inter: number, mode: Mode): { bits: number[]; events: number[] } {
  const fr = frames(crcBits * 7 + inter * 13 + kind.length, 8, kind === 'ones' ? 40 : 200, kind);
  let next = 0;
  const bits: number[] = [];
  const events: number[] = [];
  const h: HdlcTx = new HdlcTx({
    crcBits,
    interFrameFlags: inter,
    preambleFlags: 3,
    onStatus: (st) => {
      events.push(st.kind === 'underflow' ? 2 : 3, bits.length);
      if (mode === 'underflow' && st.kind === 'underflow' && next < fr.length) h.sendFrame(fr[next++]!);
    },
  });
  if (mode === 'underflow') h.sendFrame(fr[next++]!);
  else for (const f of fr) h.sendFrame(f);
  if (mode === 'end') h.end();
  for (let i = 0; i < 20_000; i++) {
    if (mode === 'abort' && (i === 333 || i === 1234 || i === 5001 || i === 5002)) h.abort();
    const b = h.getBit();
    bits.push(b);
    if (b === END_OF_DATA) break;
  }
  return { bits, events };
}

/** The deframer's frames (crcOk, length, octets), events and counts; `damage` 1 flips bits, 2 inserts aborts (fed through putBits). */
function deframerRun(line: number[], crcBits: 16 | 32, damage: 0 | 1 | 2): number[] {
  const bits = line.filter((b) => b >= 0);
  if (damage === 1) for (let i = 97; i < bits.length; i += 211) bits[i]! ^= 1;
  if (damage === 2) for (let i = 500; i < bits.length; i += 1777) bits.splice(i, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const out: number[] = [];
  const rx = new HdlcRx({
    crcBits,
    maxFrameBytes: 150,
    framingOkFlags: 3,
    onFrame: (f) => out.push(f.crcOk ? 1 : 0, f.frame.length, ...f.frame),
    onStatus: (s) => out.push(9, s.kind.length, s.kind === 'abort' ? s.octets : -1),
  });
  if (damage === 2) rx.putBits(Uint8Array.from(bits));
  else for (const b of bits) rx.putBit(b);
  const st = rx.stats;
  out.push(st.goodFrames, st.badFrames, st.aborts, st.tooLong, st.tooShort);
  return out;
}

/** A transmitter's samples (a −99999, count marker after each buffer) and status events with the sample count at each. */
function txRun(make: (getBit: () => number, onStatus: (s: string) => void) => { tx(out: Int16Array): number }, dataBits: number, block: number): number[] {
  const g = new PrbsGenerator({ pattern: 'prbs11' });
  let sent = 0;
  const samples: number[] = [];
  const events: number[] = [];
  const tx = make(() => (sent++ < dataBits ? g.getBit() : END_OF_DATA), (s) => events.push(s.length, samples.length));
  const buf = new Int16Array(block);
  let n: number;
  do {
    n = tx.tx(buf);
    for (let i = 0; i < n; i++) samples.push(buf[i]!);
    samples.push(-99999, n);
  } while (n === block);
  return [...samples, ...events];
}

const EXPECTED: Record<string, string> = {
  // Printed at 1e8473c (see the header) with GOLDEN_PRINT=1.
  'hdlc-tx 16 rand 1 queue': 'bbd8e634/20000 1618bdbf/2',
  'hdlc-rx 16 rand 1 queue damage 0': '139733c8/648',
  'hdlc-rx 16 rand 1 queue damage 1': '513493e8/654',
  'hdlc-rx 16 rand 1 queue damage 2': 'e08f5ebf/315',
  'hdlc-tx 16 rand 1 underflow': 'bbd8e634/20000 a732fdf/16',
  'hdlc-rx 16 rand 1 underflow damage 0': '139733c8/648',
  'hdlc-rx 16 rand 1 underflow damage 1': '513493e8/654',
  'hdlc-rx 16 rand 1 underflow damage 2': 'e08f5ebf/315',
  'hdlc-tx 16 rand 1 abort': 'fcc72224/20000 928b0782/2',
  'hdlc-rx 16 rand 1 abort damage 0': '65fe3911/454',
  'hdlc-rx 16 rand 1 abort damage 1': '76cf3dc9/460',
  'hdlc-rx 16 rand 1 abort damage 2': '9a257141/50',
  'hdlc-tx 16 rand 1 end': '5dd11961/6887 166cd0fc/4',
  'hdlc-rx 16 rand 1 end damage 0': '139733c8/648',
  'hdlc-rx 16 rand 1 end damage 1': 'fb8072b7/654',
  'hdlc-rx 16 rand 1 end damage 2': 'e08f5ebf/315',
  'hdlc-tx 16 rand 5 queue': 'd358fed5/20000 9197ab24/2',
  'hdlc-rx 16 rand 5 queue damage 0': '8882cd91/681',
  'hdlc-rx 16 rand 5 queue damage 1': 'f157704e/410',
  'hdlc-rx 16 rand 5 queue damage 2': 'a491b8fd/341',
  'hdlc-tx 16 rand 5 underflow': 'd358fed5/20000 82f85ebe/16',
  'hdlc-rx 16 rand 5 underflow damage 0': '8882cd91/681',
  'hdlc-rx 16 rand 5 underflow damage 1': 'f157704e/410',
  'hdlc-rx 16 rand 5 underflow damage 2': 'a491b8fd/341',
  'hdlc-tx 16 rand 5 abort': '34719515/20000 4aba01f3/2',
  'hdlc-rx 16 rand 5 abort damage 0': '868ee71e/469',
  'hdlc-rx 16 rand 5 abort damage 1': '3df364e7/534',
  'hdlc-rx 16 rand 5 abort damage 2': 'de61c43d/152',
  'hdlc-tx 16 rand 5 end': 'fc235861/8324 2e5cd9f4/4',
  'hdlc-rx 16 rand 5 end damage 0': '8882cd91/681',
  'hdlc-rx 16 rand 5 end damage 1': 'ca151784/410',
  'hdlc-rx 16 rand 5 end damage 2': 'a491b8fd/341',
  'hdlc-tx 16 ones 1 queue': '9888e135/20000 68062b30/2',
  'hdlc-rx 16 ones 1 queue damage 0': '56bc3ac/208',
  'hdlc-rx 16 ones 1 queue damage 1': '6736bfec/182',
  'hdlc-rx 16 ones 1 queue damage 2': 'e06d42a3/200',
  'hdlc-tx 16 ones 1 underflow': '9888e135/20000 9218a41b/16',
  'hdlc-rx 16 ones 1 underflow damage 0': '56bc3ac/208',
  'hdlc-rx 16 ones 1 underflow damage 1': '6736bfec/182',
  'hdlc-rx 16 ones 1 underflow damage 2': 'e06d42a3/200',
  'hdlc-tx 16 ones 1 abort': '4870e9a5/20000 d60c8c48/2',
  'hdlc-rx 16 ones 1 abort damage 0': 'd54a09ec/158',
  'hdlc-rx 16 ones 1 abort damage 1': 'e1858e9a/130',
  'hdlc-rx 16 ones 1 abort damage 2': 'ba99cbb4/123',
  'hdlc-tx 16 ones 1 end': 'be5e6281/1982 da1ce59f/4',
  'hdlc-rx 16 ones 1 end damage 0': '56bc3ac/208',
  'hdlc-rx 16 ones 1 end damage 1': '7246842c/182',
  'hdlc-rx 16 ones 1 end damage 2': 'e06d42a3/200',
  'hdlc-tx 16 ones 5 queue': 'e3e09135/20000 ca25db6d/2',
  'hdlc-rx 16 ones 5 queue damage 0': 'd59a24f8/230',
  'hdlc-rx 16 ones 5 queue damage 1': '6a17d6bf/179',
  'hdlc-rx 16 ones 5 queue damage 2': '2cb3256b/199',
  'hdlc-tx 16 ones 5 underflow': 'e3e09135/20000 f724dabe/16',
  'hdlc-rx 16 ones 5 underflow damage 0': 'd59a24f8/230',
  'hdlc-rx 16 ones 5 underflow damage 1': '6a17d6bf/179',
  'hdlc-rx 16 ones 5 underflow damage 2': '2cb3256b/199',
  'hdlc-tx 16 ones 5 abort': '64dc175/20000 42e029c9/2',
  'hdlc-rx 16 ones 5 abort damage 0': '15e7be52/193',
  'hdlc-rx 16 ones 5 abort damage 1': 'eb717821/203',
  'hdlc-rx 16 ones 5 abort damage 2': '449c96d8/139',
  'hdlc-tx 16 ones 5 end': 'f315fe81/2449 9691adb1/4',
  'hdlc-rx 16 ones 5 end damage 0': 'd59a24f8/230',
  'hdlc-rx 16 ones 5 end damage 1': 'beaf945d/179',
  'hdlc-rx 16 ones 5 end damage 2': '2cb3256b/199',
  'hdlc-tx 16 mixed 1 queue': '7c835b65/20000 adff24a/2',
  'hdlc-rx 16 mixed 1 queue damage 0': '9dd1d59e/533',
  'hdlc-rx 16 mixed 1 queue damage 1': 'a5f989f7/271',
  'hdlc-rx 16 mixed 1 queue damage 2': 'c27f07c4/207',
  'hdlc-tx 16 mixed 1 underflow': '7c835b65/20000 98c0a4d3/16',
  'hdlc-rx 16 mixed 1 underflow damage 0': '9dd1d59e/533',
  'hdlc-rx 16 mixed 1 underflow damage 1': 'a5f989f7/271',
  'hdlc-rx 16 mixed 1 underflow damage 2': 'c27f07c4/207',
  'hdlc-tx 16 mixed 1 abort': '901e0154/20000 89f371a1/2',
  'hdlc-rx 16 mixed 1 abort damage 0': '1c4af1b/181',
  'hdlc-rx 16 mixed 1 abort damage 1': 'f2854995/187',
  'hdlc-rx 16 mixed 1 abort damage 2': '1f152deb/144',
  'hdlc-tx 16 mixed 1 end': '23dcd3f1/6193 ce69ddd1/4',
  'hdlc-rx 16 mixed 1 end damage 0': '9dd1d59e/533',
  'hdlc-rx 16 mixed 1 end damage 1': '5e191e16/271',
  'hdlc-rx 16 mixed 1 end damage 2': 'c27f07c4/207',
  'hdlc-tx 16 mixed 5 queue': 'fabdedd5/20000 bf5b8e25/2',
  'hdlc-rx 16 mixed 5 queue damage 0': '9ec06a3c/474',
  'hdlc-rx 16 mixed 5 queue damage 1': '45fe143f/265',
  'hdlc-rx 16 mixed 5 queue damage 2': '480b791b/316',
  'hdlc-tx 16 mixed 5 underflow': 'fabdedd5/20000 79accd12/16',
  'hdlc-rx 16 mixed 5 underflow damage 0': '9ec06a3c/474',
  'hdlc-rx 16 mixed 5 underflow damage 1': '45fe143f/265',
  'hdlc-rx 16 mixed 5 underflow damage 2': '480b791b/316',
  'hdlc-tx 16 mixed 5 abort': 'f29b91e4/20000 cc1bfa7b/2',
  'hdlc-rx 16 mixed 5 abort damage 0': '3bd5ded5/220',
  'hdlc-rx 16 mixed 5 abort damage 1': '9fb17876/224',
  'hdlc-rx 16 mixed 5 abort damage 2': '9b8b7f46/114',
  'hdlc-tx 16 mixed 5 end': 'ce36af11/6185 cd12e1e6/4',
  'hdlc-rx 16 mixed 5 end damage 0': '9ec06a3c/474',
  'hdlc-rx 16 mixed 5 end damage 1': '5dc52a3c/265',
  'hdlc-rx 16 mixed 5 end damage 2': '480b791b/316',
  'hdlc-tx 32 rand 1 queue': '60188ba5/20000 4e54df9e/2',
  'hdlc-rx 32 rand 1 queue damage 0': '21803e4b/722',
  'hdlc-rx 32 rand 1 queue damage 1': '2e860014/602',
  'hdlc-rx 32 rand 1 queue damage 2': 'bc5e020c/204',
  'hdlc-tx 32 rand 1 underflow': '60188ba5/20000 29a16d6b/16',
  'hdlc-rx 32 rand 1 underflow damage 0': '21803e4b/722',
  'hdlc-rx 32 rand 1 underflow damage 1': '2e860014/602',
  'hdlc-rx 32 rand 1 underflow damage 2': 'bc5e020c/204',
  'hdlc-tx 32 rand 1 abort': 'ec248014/20000 2bc6f932/2',
  'hdlc-rx 32 rand 1 abort damage 0': 'd1113c9b/480',
  'hdlc-rx 32 rand 1 abort damage 1': '58631682/458',
  'hdlc-rx 32 rand 1 abort damage 2': 'd314cff1/178',
  'hdlc-tx 32 rand 1 end': 'eed27a51/6024 58172c63/4',
  'hdlc-rx 32 rand 1 end damage 0': '21803e4b/722',
  'hdlc-rx 32 rand 1 end damage 1': 'd1a26f46/602',
  'hdlc-rx 32 rand 1 end damage 2': 'bc5e020c/204',
  'hdlc-tx 32 rand 5 queue': '10d3ab95/20000 731f0a09/2',
  'hdlc-rx 32 rand 5 queue damage 0': 'c381988f/420',
  'hdlc-rx 32 rand 5 queue damage 1': '9886b1f4/276',
  'hdlc-rx 32 rand 5 queue damage 2': 'ac311f92/234',
  'hdlc-tx 32 rand 5 underflow': '10d3ab95/20000 844ad5fc/16',
  'hdlc-rx 32 rand 5 underflow damage 0': 'c381988f/420',
  'hdlc-rx 32 rand 5 underflow damage 1': '9886b1f4/276',
  'hdlc-rx 32 rand 5 underflow damage 2': 'ac311f92/234',
  'hdlc-tx 32 rand 5 abort': 'd8acaf54/20000 2c7161bf/2',
  'hdlc-rx 32 rand 5 abort damage 0': 'f6bf4cf3/378',
  'hdlc-rx 32 rand 5 abort damage 1': '35be9506/382',
  'hdlc-rx 32 rand 5 abort damage 2': '863c19d9/213',
  'hdlc-tx 32 rand 5 end': '96983f40/6447 1b0ef267/4',
  'hdlc-rx 32 rand 5 end damage 0': 'c381988f/420',
  'hdlc-rx 32 rand 5 end damage 1': '903adec4/276',
  'hdlc-rx 32 rand 5 end damage 2': 'ac311f92/234',
  'hdlc-tx 32 ones 1 queue': 'c8314ad4/20000 51ecee69/2',
  'hdlc-rx 32 ones 1 queue damage 0': 'de72a02e/195',
  'hdlc-rx 32 ones 1 queue damage 1': 'eca5f4b/219',
  'hdlc-rx 32 ones 1 queue damage 2': '833a4194/182',
  'hdlc-tx 32 ones 1 underflow': 'c8314ad4/20000 9c97c3c1/16',
  'hdlc-rx 32 ones 1 underflow damage 0': 'de72a02e/195',
  'hdlc-rx 32 ones 1 underflow damage 1': 'eca5f4b/219',
  'hdlc-rx 32 ones 1 underflow damage 2': '833a4194/182',
  'hdlc-tx 32 ones 1 abort': '43a59c45/20000 cfe35c34/2',
  'hdlc-rx 32 ones 1 abort damage 0': '9abcef3f/159',
  'hdlc-rx 32 ones 1 abort damage 1': '7c117c2e/175',
  'hdlc-rx 32 ones 1 abort damage 2': '23e0b3a1/122',
  'hdlc-tx 32 ones 1 end': '51a8b840/1988 6417d2a4/4',
  'hdlc-rx 32 ones 1 end damage 0': 'de72a02e/195',
  'hdlc-rx 32 ones 1 end damage 1': '19da238b/219',
  'hdlc-rx 32 ones 1 end damage 2': '833a4194/182',
  'hdlc-tx 32 ones 5 queue': '249625b5/20000 c7dcfffc/2',
  'hdlc-rx 32 ones 5 queue damage 0': '5033dc04/178',
  'hdlc-rx 32 ones 5 queue damage 1': 'be6c071f/154',
  'hdlc-rx 32 ones 5 queue damage 2': '70000afd/156',
  'hdlc-tx 32 ones 5 underflow': '249625b5/20000 23dc6bdc/16',
  'hdlc-rx 32 ones 5 underflow damage 0': '5033dc04/178',
  'hdlc-rx 32 ones 5 underflow damage 1': 'be6c071f/154',
  'hdlc-rx 32 ones 5 underflow damage 2': '70000afd/156',
  'hdlc-tx 32 ones 5 abort': '7a0f8af5/20000 987a457/2',
  'hdlc-rx 32 ones 5 abort damage 0': '7b745db2/153',
  'hdlc-rx 32 ones 5 abort damage 1': 'ea7541cb/173',
  'hdlc-rx 32 ones 5 abort damage 2': 'a0c9ed6e/124',
  'hdlc-tx 32 ones 5 end': '5e41e010/2083 ba70daf5/4',
  'hdlc-rx 32 ones 5 end damage 0': '5033dc04/178',
  'hdlc-rx 32 ones 5 end damage 1': 'c97bcb5f/154',
  'hdlc-rx 32 ones 5 end damage 2': '70000afd/156',
  'hdlc-tx 32 mixed 1 queue': '541892b4/20000 904bf4a3/2',
  'hdlc-rx 32 mixed 1 queue damage 0': 'b57153cd/562',
  'hdlc-rx 32 mixed 1 queue damage 1': 'a3725c55/206',
  'hdlc-rx 32 mixed 1 queue damage 2': 'fbe28b86/353',
  'hdlc-tx 32 mixed 1 underflow': '541892b4/20000 756dbd16/16',
  'hdlc-rx 32 mixed 1 underflow damage 0': 'b57153cd/562',
  'hdlc-rx 32 mixed 1 underflow damage 1': 'a3725c55/206',
  'hdlc-rx 32 mixed 1 underflow damage 2': 'fbe28b86/353',
  'hdlc-tx 32 mixed 1 abort': 'd97db8a4/20000 bfe986ef/2',
  'hdlc-rx 32 mixed 1 abort damage 0': '24dee0ea/426',
  'hdlc-rx 32 mixed 1 abort damage 1': '445a9a39/223',
  'hdlc-rx 32 mixed 1 abort damage 2': '2832af5f/175',
  'hdlc-tx 32 mixed 1 end': 'ebf4a9d0/5088 71cfaf6a/4',
  'hdlc-rx 32 mixed 1 end damage 0': 'b57153cd/562',
  'hdlc-rx 32 mixed 1 end damage 1': 'b65b163/206',
  'hdlc-rx 32 mixed 1 end damage 2': 'fbe28b86/353',
  'hdlc-tx 32 mixed 5 queue': '20f0244/20000 a1c9edf0/2',
  'hdlc-rx 32 mixed 5 queue damage 0': 'abc15831/643',
  'hdlc-rx 32 mixed 5 queue damage 1': '6d825d3/504',
  'hdlc-rx 32 mixed 5 queue damage 2': '5713be69/233',
  'hdlc-tx 32 mixed 5 underflow': '20f0244/20000 607f1c9a/16',
  'hdlc-rx 32 mixed 5 underflow damage 0': 'abc15831/643',
  'hdlc-rx 32 mixed 5 underflow damage 1': '6d825d3/504',
  'hdlc-rx 32 mixed 5 underflow damage 2': '5713be69/233',
  'hdlc-tx 32 mixed 5 abort': '71272394/20000 61554e0b/2',
  'hdlc-rx 32 mixed 5 abort damage 0': '2a8db79/456',
  'hdlc-rx 32 mixed 5 abort damage 1': 'b29f8de2/122',
  'hdlc-rx 32 mixed 5 abort damage 2': '5ac75e04/165',
  'hdlc-tx 32 mixed 5 end': '69adc6d0/6088 5b47e689/4',
  'hdlc-rx 32 mixed 5 end damage 0': 'abc15831/643',
  'hdlc-rx 32 mixed 5 end damage 1': '63bbb6a1/504',
  'hdlc-rx 32 mixed 5 end damage 2': '5713be69/233',
  'g711': 'b78a4585/65536 bb934dc5/65536 b107d026/256 1f0f5fa5/256 3d42bf3e/14600',
  'v27ter-tx 4800 0 1 long': '1e2ad914/18053',
  'v27ter-tx 4800 0 1 short': '6325d5dc/2273',
  'v27ter-tx 4800 0 7 long': '4e3d4e0b/7745',
  'v27ter-tx 4800 0 7 short': '66abdf32/980',
  'v27ter-tx 4800 0 161 long': '72bd3ae5/6101',
  'v27ter-tx 4800 0 161 short': '19f7f0ba/775',
  'v27ter-tx 4800 2 1 long': 'd4c77b84/18053',
  'v27ter-tx 4800 2 1 short': '5a378bfe/2273',
  'v27ter-tx 4800 2 7 long': '121b089b/7745',
  'v27ter-tx 4800 2 7 short': '7fcd7134/980',
  'v27ter-tx 4800 2 161 long': '27bfb271/6101',
  'v27ter-tx 4800 2 161 short': '5c9ffac0/775',
  'v27ter-tx 4800 1001 1 long': '4b2f474b/23048',
  'v27ter-tx 4800 1001 1 short': 'dd08d164/7268',
  'v27ter-tx 4800 1001 7 long': 'f89c186c/9886',
  'v27ter-tx 4800 1001 7 short': 'd1994994/3122',
  'v27ter-tx 4800 1001 161 long': 'f8fad32a/7786',
  'v27ter-tx 4800 1001 161 short': '76f2ebb1/2462',
  'v27ter-tx 2400 0 1 long': '8cfe4967/23909',
  'v27ter-tx 2400 0 1 short': '1ee91afb/2870',
  'v27ter-tx 2400 0 7 long': '503e20d2/10259',
  'v27ter-tx 2400 0 7 short': '7c6f8e89/1241',
  'v27ter-tx 2400 0 161 long': '6b817fe1/8079',
  'v27ter-tx 2400 0 161 short': '3ebda23/977',
  'v27ter-tx 2400 2 1 long': 'd117316b/23930',
  'v27ter-tx 2400 2 1 short': '3c64e165/2888',
  'v27ter-tx 2400 2 7 long': 'e7d150b9/10265',
  'v27ter-tx 2400 2 7 short': '298f4a82/1250',
  'v27ter-tx 2400 2 161 long': '58f304a8/8085',
  'v27ter-tx 2400 2 161 short': 'ca787536/986',
  'v27ter-tx 2400 1001 1 long': 'c54c2b81/33908',
  'v27ter-tx 2400 1001 1 short': 'f3673910/12869',
  'v27ter-tx 2400 1001 7 long': 'a0b74474/14543',
  'v27ter-tx 2400 1001 7 short': '7e594b96/5525',
  'v27ter-tx 2400 1001 161 long': '68e89a50/11454',
  'v27ter-tx 2400 1001 161 short': '3ae0fa44/4353',
  'v29-tx 9600 0 1': 'da1963e0/6509',
  'v29-tx 9600 0 7': '23fb378f/2795',
  'v29-tx 9600 0 161': '3d0ce8fb/2203',
  'v29-tx 9600 3 1': 'd1cdee58/6509',
  'v29-tx 9600 3 7': 'd040445f/2795',
  'v29-tx 9600 3 161': '77d80d83/2203',
  'v29-tx 9600 1001 1': '69704716/9008',
  'v29-tx 9600 1001 7': '3138f45c/3869',
  'v29-tx 9600 1001 161': 'e333ae29/3047',
  'v29-tx 7200 0 1': '4fbe7dc6/6509',
  'v29-tx 7200 0 7': '3f13247d/2795',
  'v29-tx 7200 0 161': '9c9e86d9/2203',
  'v29-tx 7200 3 1': '345e64f/6518',
  'v29-tx 7200 3 7': 'c13ece96/2798',
  'v29-tx 7200 3 161': 'd4b65285/2207',
  'v29-tx 7200 1001 1': '4b2ed312/9839',
  'v29-tx 7200 1001 7': 'd843b6f7/4223',
  'v29-tx 7200 1001 161': '59edfbc9/3327',
  'v29-tx 4800 0 1': 'daec07b9/6509',
  'v29-tx 4800 0 7': '6da29432/2795',
  'v29-tx 4800 0 161': 'c7a9ae86/2203',
  'v29-tx 4800 3 1': 'd59c9005/6518',
  'v29-tx 4800 3 7': '36f59958/2798',
  'v29-tx 4800 3 161': '7c35137f/2207',
  'v29-tx 4800 1001 1': '248fa6be/11510',
  'v29-tx 4800 1001 7': 'd0f1d5d4/4940',
  'v29-tx 4800 1001 161': 'bac5464/3890',
  'bert prbs9': 'dce9a94/20000 a464a9da/10',
  'bert prbs11': 'b1f3add4/20000 1e510d0e/10',
  'bert prbs15': '670bb3a4/20000 45e25b36/10',
  'bert prbs23': '411f1ed4/20000 db411706/10',
  // V.17, printed at fedda57 (session 16's start) with GOLDEN_PRINT=1.
  'v17-tx 14400 3 1 long': 'a45e7582/34265',
  'v17-tx 14400 3 1 short': '256648c2/4247',
  'v17-tx 14400 3 1 tep': '2fb237d1/39545',
  'v17-tx 14400 3 1 word': 'a45e7582/34265',
  'v17-tx 14400 3 161 long': '11771cef/11567',
  'v17-tx 14400 3 161 short': '1c0d8b07/1437',
  'v17-tx 14400 3 161 tep': 'bac8f56/13349',
  'v17-tx 14400 3 161 word': '11771cef/11567',
  'v17-tx 14400 1001 1 long': 'fbae3fca/35927',
  'v17-tx 14400 1001 1 short': 'e39443aa/5906',
  'v17-tx 14400 1001 1 tep': 'deb48ac3/41207',
  'v17-tx 14400 1001 1 word': 'fbae3fca/35927',
  'v17-tx 14400 1001 161 long': '180916d3/12129',
  'v17-tx 14400 1001 161 short': '8ef817d8/1998',
  'v17-tx 14400 1001 161 tep': '9a2586b2/13911',
  'v17-tx 14400 1001 161 word': '180916d3/12129',
  'v17-tx 12000 3 1 long': 'b73d8d7d/34265',
  'v17-tx 12000 3 1 short': 'b39916f7/4247',
  'v17-tx 12000 3 1 tep': 'ede91fb6/39545',
  'v17-tx 12000 3 1 word': 'b73d8d7d/34265',
  'v17-tx 12000 3 161 long': '8a6bdc3c/11567',
  'v17-tx 12000 3 161 short': 'b3b5fb46/1437',
  'v17-tx 12000 3 161 tep': 'cf0e50bd/13349',
  'v17-tx 12000 3 161 word': '8a6bdc3c/11567',
  'v17-tx 12000 1001 1 long': '838560d4/36266',
  'v17-tx 12000 1001 1 short': '219ca1bc/6245',
  'v17-tx 12000 1001 1 tep': 'f1bdb307/41546',
  'v17-tx 12000 1001 1 word': '838560d4/36266',
  'v17-tx 12000 1001 161 long': '4eece5fe/12244',
  'v17-tx 12000 1001 161 short': '96da10ec/2111',
  'v17-tx 12000 1001 161 tep': '97647065/14026',
  'v17-tx 12000 1001 161 word': '4eece5fe/12244',
  'v17-tx 9600 3 1 long': 'c54106da/34265',
  'v17-tx 9600 3 1 short': '764c9eb8/4247',
  'v17-tx 9600 3 1 tep': 'fc75aae9/39545',
  'v17-tx 9600 3 1 word': 'c54106da/34265',
  'v17-tx 9600 3 161 long': '4897be1f/11567',
  'v17-tx 9600 3 161 short': '2216c46d/1437',
  'v17-tx 9600 3 161 tep': '585f0bb6/13349',
  'v17-tx 9600 3 161 word': '4897be1f/11567',
  'v17-tx 9600 1001 1 long': 'cef62edc/36767',
  'v17-tx 9600 1001 1 short': '4caa3cea/6746',
  'v17-tx 9600 1001 1 tep': 'ab9cced7/42047',
  'v17-tx 9600 1001 1 word': 'cef62edc/36767',
  'v17-tx 9600 1001 161 long': '62bcd6be/12413',
  'v17-tx 9600 1001 161 short': 'fa2257f/2280',
  'v17-tx 9600 1001 161 tep': '8420ac75/14195',
  'v17-tx 9600 1001 161 word': '62bcd6be/12413',
  'v17-tx 7200 3 1 long': '44e2303b/34277',
  'v17-tx 7200 3 1 short': '4d8554fb/4256',
  'v17-tx 7200 3 1 tep': '4cb877f0/39557',
  'v17-tx 7200 3 1 word': '44e2303b/34277',
  'v17-tx 7200 3 161 long': '368f8866/11571',
  'v17-tx 7200 3 161 short': 'd4783e67/1440',
  'v17-tx 7200 3 161 tep': '6a0c90df/13353',
  'v17-tx 7200 3 161 word': '368f8866/11571',
  'v17-tx 7200 1001 1 long': '43fabfd0/37595',
  'v17-tx 7200 1001 1 short': '52ec4769/7577',
  'v17-tx 7200 1001 1 tep': 'e934737/42875',
  'v17-tx 7200 1001 1 word': '43fabfd0/37595',
  'v17-tx 7200 1001 161 long': 'c14d91e/12691',
  'v17-tx 7200 1001 161 short': '485f3b34/2561',
  'v17-tx 7200 1001 161 tep': '1d6d0075/14473',
  'v17-tx 7200 1001 161 word': 'c14d91e/12691',
};

describe('outputs identical to session 13\'s start', () => {
  const got: Record<string, string> = {};
  const hdlcLines = new Map<string, number[]>();
  for (const crcBits of [16, 32] as const) {
    for (const kind of ['rand', 'ones', 'mixed'] as const) {
      for (const inter of [1, 5]) {
        for (const mode of ['queue', 'underflow', 'abort', 'end'] as const) {
          const name = `hdlc-tx ${crcBits} ${kind} ${inter} ${mode}`;
          it(name, () => {
            const r = framerRun(crcBits, kind, inter, mode);
            hdlcLines.set(name, r.bits);
            got[name] = `${hash(r.bits)} ${hash(r.events)}`;
            expect(got[name]).toBe(EXPECTED[name]);
          });
          for (const damage of [0, 1, 2] as const) {
            const rxName = `hdlc-rx ${crcBits} ${kind} ${inter} ${mode} damage ${damage}`;
            it(rxName, () => {
              const line = hdlcLines.get(name) ?? framerRun(crcBits, kind, inter, mode).bits;
              got[rxName] = hash(deframerRun(line, crcBits, damage));
              expect(got[rxName]).toBe(EXPECTED[rxName]);
            });
          }
        }
      }
    }
  }

  it('g711 every sample and code, odd offsets and lengths', () => {
    const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const u = new Uint8Array(65536);
    const a = new Uint8Array(65536);
    ulawEncode(all, u);
    alawEncode(all, a);
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const du = new Int16Array(256);
    const da = new Int16Array(256);
    ulawDecode(codes, du);
    alawDecode(codes, da);
    const blocks: number[] = [];
    const src = Uint8Array.from({ length: 400 }, (_, i) => (i * 37 + 11) & 0xff);
    for (const off of [0, 1, 2, 3, 5]) {
      for (const len of [0, 1, 2, 3, 7, 8, 9, 160, 161, 333]) {
        const o = new Int16Array(len + 3 + off).fill(7);
        blocks.push(ulawDecode(src.subarray(off, off + len), o.subarray(off)), ...o);
        o.fill(7);
        blocks.push(alawDecode(src.subarray(off, off + len), o.subarray(off)), ...o);
        const pcm = Int16Array.from({ length: len }, (_, i) => ((i * 7919 + off) % 65536) - 32768);
        const c = new Uint8Array(len + 2).fill(9);
        blocks.push(ulawEncode(pcm, c.subarray(off % 2)), ...c);
        c.fill(9);
        blocks.push(alawEncode(pcm, c.subarray(off % 2)), ...c);
      }
    }
    got.g711 = [hash(u), hash(a), hash(du), hash(da), hash(blocks)].join(' ');
    expect(got.g711).toBe(EXPECTED.g711);
  });

  for (const rate of [4800, 2400] as const) {
    for (const data of [0, 2, 1001]) {
      for (const block of [1, 7, 161]) {
        for (const train of ['long', 'short'] as const) {
          const name = `v27ter-tx ${rate} ${data} ${block} ${train}`;
          it(name, () => {
            got[name] = hash(txRun((getBit, onStatus) => new V27terTx({ bitRate: rate, getBit, onStatus, levelDbm0: -13, shortTrain: train === 'short' }), data, block));
            expect(got[name]).toBe(EXPECTED[name]);
          });
        }
      }
    }
  }
  for (const rate of [9600, 7200, 4800] as const) {
    for (const data of [0, 3, 1001]) {
      for (const block of [1, 7, 161]) {
        const name = `v29-tx ${rate} ${data} ${block}`;
        it(name, () => {
          got[name] = hash(txRun((getBit, onStatus) => new V29Tx({ bitRate: rate, getBit, onStatus, levelDbm0: -13 }), data, block));
          expect(got[name]).toBe(EXPECTED[name]);
        });
      }
    }
  }

  // V.17 (issue 17, session 16; printed at fedda57): every rate, data ending mid-symbol or not,
  // long and short training, the echo protection tone, bits from getBit or a word at a time.
  for (const rate of [14400, 12000, 9600, 7200] as const) {
    for (const data of [3, 1001]) {
      for (const block of [1, 161]) {
        for (const kind of ['long', 'short', 'tep', 'word'] as const) {
          const name = `v17-tx ${rate} ${data} ${block} ${kind}`;
          it(name, () => {
            got[name] = hash(txRun((getBit, onStatus) => {
              // A word source as the audio front end's: n bits of getBit's, ones after the end.
              const getWord = (n: number): number => {
                let w = 0;
                for (let i = n; i > 0; i--) {
                  const b = getBit();
                  if (b === END_OF_DATA) return WORD_END | (w << i) | ((1 << i) - 1);
                  w = (w << 1) | b;
                }
                return w;
              };
              return new V17Tx({ bitRate: rate, getBit, getWord: kind === 'word' ? getWord : undefined, onStatus, levelDbm0: -13, shortTrain: kind === 'short', tep: kind === 'tep' });
            }, data, block));
            expect(got[name]).toBe(EXPECTED[name]);
          });
        }
      }
    }
  }

  for (const pattern of ['prbs9', 'prbs11', 'prbs15', 'prbs23'] as PrbsPattern[]) {
    it(`prbs and bert ${pattern}`, () => {
      const bits = new Uint8Array(20_000);
      new PrbsGenerator({ pattern }).fill(bits);
      const out: number[] = [];
      const t = new BerTester({ pattern, onEvent: (e) => out.push(e.kind.length, e.kind === 'sync-lost' ? e.errorsInWindow : -1) });
      for (let i = 0; i < bits.length; i++) t.putBit(bits[i]! ^ (i % 97 === 5 || (i > 10_000 && i < 10_400 && i % 3 === 0) ? 1 : 0));
      const r = t.results;
      out.push(r.bits, r.errors, r.resyncs, r.synced ? 1 : 0);
      got[`bert ${pattern}`] = `${hash(bits)} ${hash(out)}`;
      expect(got[`bert ${pattern}`]).toBe(EXPECTED[`bert ${pattern}`]);
    });
  }

  it.runIf(process.env.GOLDEN_PRINT === '1')('prints the hashes (GOLDEN_PRINT=1, to fill EXPECTED)', () => {
    console.log(JSON.stringify(got, null, 1));
  });
});
