import { describe, expect, it } from 'vitest';
import { BitReader } from './bit-reader.js';
import { PageCoder } from './coder-kernel.js';
import { reverseBits } from './reverse-bits.js';

describe('the coder kernel\'s bit writer (PageCoder) / BitReader', () => {
  it('pack MSB first and pad the last byte with zeros', () => {
    const w = new PageCoder(1, 0, 16);
    w.put(0b1, 1);
    w.put(0b011, 3);
    w.put(0xabc, 12);
    w.put(0b1, 1);
    expect(w.bitLength).toBe(17);
    expect([...w.finish()]).toEqual([0b1011_1010, 0b1011_1100, 0b1000_0000]);
  });

  it('grow past the initial capacity (the kernel\'s memory) and read back what was written', () => {
    const w = new PageCoder(1, 0, 16);
    const items: Array<[number, number]> = [];
    for (let i = 0; i < 50_000; i++) {
      const len = 1 + (i % 25); // up to 25: a make-up and a terminating code put as one
      const v = (i * 2654435761) >>> (32 - len);
      items.push([v, len]);
      w.put(v, len);
      if (i % 97 === 0) {
        w.zeros(i % 40);
        items.push([0, i % 40]);
      }
    }
    const r = new BitReader(w.finish());
    for (const [v, len] of items) {
      if (len === 0) continue;
      if (v === 0 && len > 24) {
        expect(r.countZeros(len)).toBeGreaterThanOrEqual(len);
        r.skip(len);
      } else if (len > 24) expect(r.read(len - 24) * 2 ** 24 + r.read(24)).toBe(v);
      else expect(r.read(len)).toBe(v);
    }
    expect(r.remaining).toBeLessThan(8);
  });

  it('read zeros past the end and count zeros up to a limit', () => {
    const r = new BitReader(new Uint8Array([0x00, 0x00, 0x10]));
    expect(r.countZeros(100)).toBe(19);
    expect(r.countZeros(5)).toBe(5);
    r.skip(20);
    expect(r.peek(16)).toBe(0);
    expect(r.remaining).toBe(4);
    r.alignToByte();
    expect(r.pos).toBe(24);
  });

  it('count zeros across words, from any bit position, up to the end of the input', () => {
    const r = new BitReader(new Uint8Array([0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00]));
    expect(r.countZeros(100)).toBe(0);
    r.skip(1);
    expect(r.countZeros(100)).toBe(46);
    expect(r.countZeros(30)).toBe(30);
    r.skip(47);
    expect(r.countZeros(100)).toBe(8); // the rest of the input, not the zero padding after it
  });

  it('reverseBits mirrors every byte (FillOrder 2)', () => {
    expect([...reverseBits(new Uint8Array([0x01, 0x80, 0xf0, 0x12]))]).toEqual([0x80, 0x01, 0x0f, 0x48]);
  });
});
