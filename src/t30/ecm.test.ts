// ECM framing: blocks of frames, PPS and EOR layout, the PPR frame map (TSB-85 vectors).
import { describe, expect, it } from 'vitest';
import { toTsb, tsb } from '../../test/conformance/tsb85.js';
import { reverseBits } from '../codecs/index.js';
import { encodePprMap, eorFrame, fcdFrame, parseEor, parsePps, ppsFrame, pprWants, ecmBlocks } from './ecm.js';
import { parseFrame } from './fcf.js';

describe('ECM blocks', () => {
  it('cuts a page into 256-frame blocks of numbered FCD frames, payloads padded and in HDLC bit order', () => {
    const page = new Uint8Array(256 * 300 + 10).map((_, i) => i & 0xff);
    const blocks = ecmBlocks(page, 256);
    expect(blocks.map((b) => b.length)).toEqual([256, 45]);
    expect(blocks[0]![0]).toEqual(fcdFrame(0, reverseBits(page.subarray(0, 256))));
    expect(blocks[0]![255]).toEqual(fcdFrame(255, reverseBits(page.subarray(255 * 256, 256 * 256))));
    const last = blocks[1]![44]!;
    expect(last.length).toBe(4 + 256);
    expect(last[3]).toBe(44);
    expect([...last.subarray(4, 14)]).toEqual([...reverseBits(page.subarray(256 * 300))]);
    expect(last.subarray(14).every((b) => b === 0)).toBe(true);
    expect(ecmBlocks(new Uint8Array(100), 64)[0]).toEqual([fcdFrame(0, reverseBits(new Uint8Array(64))), fcdFrame(1, new Uint8Array(64))]);
    expect(ecmBlocks(new Uint8Array(0), 64)[0]).toEqual([fcdFrame(0, new Uint8Array(64))]);
  });

  it('numbers FCD frames', () => {
    expect(toTsb(fcdFrame(5, Uint8Array.of(0x80)))).toBe('FF C0 60 A0 01');
  });
});

describe('PPS / EOR', () => {
  it('matches the TSB-85 PPS-NULL, PPS-MPS and PPS-EOP frames', () => {
    expect(toTsb(ppsFrame({ fcf2: 'NULL', page: 0, block: 0, frames: 215 }, 0))).toBe('FF C8 7D 00 00 00 6B');
    expect(toTsb(ppsFrame({ fcf2: 'MPS', page: 1, block: 0, frames: 215 }, 0))).toBe('FF C8 7D 72 80 00 6B');
    expect(toTsb(ppsFrame({ fcf2: 'EOP', page: 0, block: 1, frames: 1 }, 0))).toBe('FF C8 7D 74 00 80 00');
    expect(parsePps(parseFrame(tsb('FF C8 7D 74 00 00 10'))!.info)).toEqual({ fcf2: 'EOP', page: 0, block: 0, frames: 9 });
    expect(parsePps(parseFrame(tsb('FF C8 FD F2 00 80 6B'))!.info)).toEqual({ fcf2: 'MPS', page: 0, block: 1, frames: 215 });
    expect(parsePps(Uint8Array.of(0x4e, 0))).toBeUndefined();
  });

  it('EOR carries its post-message command', () => {
    expect(toTsb(eorFrame('EOP', 0))).toBe('FF C8 73 74');
    expect(toTsb(eorFrame('NULL', 1))).toBe('FF C8 F3 00');
    expect(parseEor(parseFrame(tsb('FF C8 73 72'))!.info)).toBe('MPS');
  });
});

describe('PPR frame map', () => {
  it('reads the TSB-85 map asking for frame 0 and everything from 215', () => {
    const map = parseFrame(tsb('FF C8 3D 80 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 FF FF FF FF FF'))!.info;
    const wanted = [...Array(256).keys()].filter((f) => pprWants(map, f));
    expect(wanted[0]).toBe(0);
    expect(wanted[1]).toBe(215);
    expect(wanted).toHaveLength(1 + 256 - 215);
  });

  it('writes frames 8i + j in bit j of octet i', () => {
    const map = encodePprMap((f) => f === 3 || f === 17 || f >= 250);
    expect(map).toHaveLength(32);
    expect(map[0]).toBe(0x08);
    expect(map[2]).toBe(0x02);
    expect(map[31]).toBe(0xfc);
  });
});
