import { describe, expect, it } from 'vitest';
import { ByteSlab } from './byte-slab.js';

describe('ByteSlab', () => {
  it('hands out zero-filled views that never overlap, then starts a new slab', () => {
    const slab = new ByteSlab(256);
    const views = Array.from({ length: 12 }, (_, i) => slab.take(40 + i));
    views.forEach((v, i) => {
      expect(v.length).toBe(40 + i);
      expect(v.every((b) => b === 0)).toBe(true);
      v.fill(i + 1);
    });
    // Writing each view changed none of the others.
    views.forEach((v, i) => expect(v.every((b) => b === i + 1)).toBe(true));
    expect(new Set(views.map((v) => v.buffer)).size).toBeGreaterThan(1);
    expect(views.every((v) => v.buffer.byteLength === 256)).toBe(true);
  });

  it('gives large requests a buffer of their own, and empty ones an empty view', () => {
    const slab = new ByteSlab(256);
    expect(slab.take(65).buffer.byteLength).toBe(65);
    expect(slab.take(0).length).toBe(0);
    expect(() => new ByteSlab(10)).toThrow(RangeError);
  });
});
