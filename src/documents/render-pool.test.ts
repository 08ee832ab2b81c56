import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../test/helpers/documents.js';
import { bitmapEquals, decodeMH, decodeMMR, decodeMR, type Bitmap } from '../codecs/index.js';
import { encodePage } from './encode-worker.js';
import { closeRenderPool, renderDocument } from './pipeline.js';
import { encodeInPool } from './render-pool.js';
import { workerEntry } from './worker-pool.js';

afterAll(() => closeRenderPool());

let pages: Bitmap[] | undefined;
async function samplePages(): Promise<Bitmap[]> {
  pages ??= await renderDocument(fixture('standard-fonts.pdf'), 'pdf', { pages: [1, 2, 4, 5], quality: 'Standard', isolate: false });
  return pages;
}

describe('workerEntry', () => {
  it('runs .ts sources through tsx and compiled .js as they are', () => {
    expect(workerEntry('file:///app/src/documents/render-pool.ts', 'render-worker')).toEqual({
      filename: '/app/src/documents/render-worker.ts',
      execArgv: ['--import', 'tsx'],
    });
    expect(workerEntry('file:///app/dist/documents/render-pool.js', 'render-worker')).toEqual({ filename: '/app/dist/documents/render-worker.js', execArgv: [] });
  });
});

describe('encodeInPool (pages coded in the render workers)', () => {
  it.each(['mh', 'mr', 'mmr'] as const)('%s: worker output equals the in-thread encoder and decodes to the page', async (compression) => {
    const input = await samplePages();
    const coded = await encodeInPool(input, { compression, yDpi: 196 });
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

  it('lends the workers the bitmaps (moved there and back, not copied): the caller has them again, unchanged', async () => {
    const [page] = await samplePages();
    const before = Buffer.from(page!.data);
    await encodeInPool([page!], { compression: 'mmr' });
    expect(page!.data.byteLength).toBe(before.length);
    expect(Buffer.from(page!.data).equals(before)).toBe(true);
  });
});
