import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../test/helpers/documents.js';
import { bitmapEquals, decodeMH, decodeMMR, decodeMR, type Bitmap } from '../codecs/index.js';
import { EncodePool, encodePages } from './encode-pool.js';
import { encodePage } from './encode-worker.js';
import { renderDocument } from './pipeline.js';
import { closeRenderPool } from './pipeline.js';
import { workerEntry } from './worker-pool.js';

const pool = new EncodePool({ threads: 2 });
afterAll(async () => {
  await pool.close();
  await closeRenderPool();
});

let pages: Bitmap[] | undefined;
async function samplePages(): Promise<Bitmap[]> {
  pages ??= await renderDocument(fixture('standard-fonts.pdf'), 'pdf', { pages: [1, 2, 4, 5], quality: 'Standard', isolate: false });
  return pages;
}

describe('workerEntry', () => {
  it('runs .ts sources through tsx and compiled .js as they are', () => {
    expect(workerEntry('file:///app/src/documents/encode-pool.ts', 'encode-worker')).toEqual({
      filename: '/app/src/documents/encode-worker.ts',
      execArgv: ['--import', 'tsx'],
    });
    expect(workerEntry('file:///app/dist/documents/encode-pool.js', 'encode-worker')).toEqual({ filename: '/app/dist/documents/encode-worker.js', execArgv: [] });
  });
});

describe('EncodePool', () => {
  it.each(['mh', 'mr', 'mmr'] as const)('%s: worker output equals the in-thread encoder and decodes to the page', async (compression) => {
    const input = await samplePages();
    const coded = await pool.encodeAll(input, { compression, yDpi: 196 });
    expect(coded).toHaveLength(input.length);
    for (const [i, page] of input.entries()) {
      expect(Buffer.from(coded[i]!).equals(Buffer.from(encodePage(page, { compression, yDpi: 196 })))).toBe(true);
      const decoded =
        compression === 'mh'
          ? decodeMH(coded[i]!, { width: page.width })
          : compression === 'mr'
            ? decodeMR(coded[i]!, { width: page.width })
            : decodeMMR(coded[i]!, { width: page.width });
      expect(bitmapEquals(decoded, page)).toBe(true);
    }
  });

  it('leaves the caller its bitmaps (copied to the workers, not moved)', async () => {
    const [page] = await samplePages();
    const before = Buffer.from(page!.data);
    await pool.encode(page!, { compression: 'mmr' });
    expect(page!.data.byteLength).toBe(before.length);
    expect(Buffer.from(page!.data).equals(before)).toBe(true);
  });

  it('encodes in this thread when asked for 0 threads', async () => {
    const input = await samplePages();
    const a = await encodePages(input, { compression: 'mr', yDpi: 196 }, { threads: 0 });
    const b = await pool.encodeAll(input, { compression: 'mr', yDpi: 196 });
    expect(a.map((x) => Buffer.from(x).toString('base64'))).toEqual(b.map((x) => Buffer.from(x).toString('base64')));
  });

  it('validates its thread count', () => {
    expect(() => new EncodePool({ threads: 0 })).toThrow(/threads must be an integer in 1..256/);
  });
});
