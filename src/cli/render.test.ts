import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../../test/helpers/documents.js';
import { readTiff } from '../documents/index.js';
import { UsageError } from './args.js';
import { renderCommand } from './render.js';

let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faxstack-render-'));
  files.pdf = join(FIXTURES, 'standard-fonts.pdf');
  files.tiff = join(FIXTURES, 'multipage-color.tif');
  files.jpeg = join(dir, 'photo.jpg');
  writeFileSync(files.jpeg, await sharp({ create: { width: 800, height: 600, channels: 3, background: '#777777' } }).jpeg().toBuffer());
  files.png = join(dir, 'logo.png');
  writeFileSync(
    files.png,
    await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="400"><rect x="50" y="50" width="200" height="100" fill="black"/></svg>')).png().toBuffer(),
  );
  files.text = join(dir, 'notes.txt');
  writeFileSync(files.text, 'Notes\n\tindented\fsecond page\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(): { io: Parameters<typeof renderCommand>[1] & object; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, now: () => new Date(Date.UTC(2025, 4, 1, 14, 3)) },
    out: () => out,
    err: () => err,
  };
}

function tiffinfo(file: string): string {
  return execFileSync('tiffinfo', [file], { encoding: 'utf8' });
}

describe('faxstack render', () => {
  it('turns a PDF, a JPEG, a PNG, a multi-page TIFF and a text file into one TIFF-F that libtiff accepts', async () => {
    const out = join(dir, 'fax.tif');
    const previews = join(dir, 'previews');
    const c = capture();
    const code = await renderCommand(
      [files.pdf!, files.jpeg!, files.png!, files.tiff!, files.text!, '--out', out, '--subject', 'Quarterly', '--to-name', 'Bob', '--from-name', 'Alice', '--from-number', '+12125550100', '--preview-dir', previews, '--json'],
      c.io,
    );
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(c.out().trim().split('\n').pop()!);
    // cover + 5 PDF pages + 1 + 1 + 3 TIFF pages + 2 text pages
    expect(result).toMatchObject({ success: true, code: 0, pages: 13, pagesTotal: 13, compression: 'MH', resolution: '204x196', out });
    expect(result.modes[0]).toBe('text');

    const info = tiffinfo(out);
    expect(info.match(/=== TIFF directory/g)).toHaveLength(13);
    expect(info.match(/Image Width: 1728 /g)).toHaveLength(13);
    expect(info.match(/Resolution: 204, 196 pixels\/inch/g)).toHaveLength(13);
    expect(info.match(/Compression Scheme: CCITT Group 3/g)).toHaveLength(13);
    expect(info.match(/Photometric Interpretation: min-is-white/g)).toHaveLength(13);
    expect(info).toContain('Page Number: 0-13');
    expect(info).toContain('Page Number: 12-13');
    // libtiff decodes every strip without complaint
    execFileSync('tiffcp', ['-c', 'none', out, join(dir, 'check.tif')]);

    const pages = readTiff(readFileSync(out));
    expect(pages).toHaveLength(13);
    // A4 unless the source is closer to Letter's proportions (1.29): the ramp page, the 4:3 images, two TIFF pages
    expect(pages.map((p) => p.height)).toEqual([2287, 2287, 2287, 2287, 2287, 2151, 2151, 2151, 2287, 2151, 2151, 2287, 2287]);
    expect(readdirSync(previews)).toHaveLength(13);
    expect(readdirSync(previews)[0]).toBe('page-001.png');
  });

  it('applies one --pages to every file, or one per file; writes MMR at HD', async () => {
    const out = join(dir, 'sel.tif');
    const c = capture();
    expect(await renderCommand([files.pdf!, files.tiff!, '--out', out, '--pages', '2-3', '--no-header', '--quality', 'HD', '--compression', 'mmr', '--json'], c.io)).toBe(0);
    expect(JSON.parse(c.out())).toMatchObject({ pages: 4, resolution: '408x391', compression: 'MMR' });
    const info = tiffinfo(out);
    expect(info.match(/Image Width: 3456 /g)).toHaveLength(4);
    expect(info.match(/CCITT Group 4/g)).toHaveLength(4);

    const d = capture();
    expect(await renderCommand([files.pdf!, files.tiff!, '--out', out, '--pages', '5', '--pages', '1,3', '--quality', 'low'], d.io)).toBe(0);
    expect(d.out()).toMatch(/^3 pages written to .* 204×98 dpi, 1728 pixels per line, MH\n$/);
  });

  it('exits 2 with the reason for a bad document or selection', async () => {
    const c = capture();
    expect(await renderCommand([join(FIXTURES, 'encrypted.pdf'), '--out', join(dir, 'x.tif'), '--json'], c.io)).toBe(2);
    expect(JSON.parse(c.out())).toMatchObject({ success: false, code: -3006, message: expect.stringMatching(/encrypted PDF/) });
    const d = capture();
    expect(await renderCommand([files.text!, '--out', join(dir, 'x.tif'), '--pages', '3'], d.io)).toBe(2);
    expect(d.err()).toMatch(/notes.txt: page 3 does not exist \(the document has 2 pages\)/);
    const e = capture();
    expect(await renderCommand([join(dir, 'missing.pdf'), '--out', join(dir, 'x.tif')], e.io)).toBe(2);
    expect(e.err()).toMatch(/missing.pdf: ENOENT/);
  });

  it('a render that fails once the fax is being made leaves OUT as it was, and no partial file beside it', async () => {
    const out = join(dir, 'kept.tif');
    writeFileSync(out, 'the fax from before');
    const tooLong = join(dir, 'long.txt');
    writeFileSync(tooLong, 'page\f'.repeat(200) + 'one too many\n'); // 201 pages: past the limit once counted
    const c = capture();
    expect(await renderCommand([tooLong, '--out', out], c.io)).toBe(1);
    expect(c.err()).toMatch(/201 pages, more than the limit of 200/);
    expect(readFileSync(out, 'latin1')).toBe('the fax from before');
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it.each([
    [['a.pdf'], /--out OUT.tif is required/],
    [['--out', 'x.tif'], /no input files/],
    [['a.pdf', '--out', 'x.tif', '--quality', 'Ultra'], /--quality must be Low, Standard or HD/],
    [['a.pdf', '--out', 'x.tif', '--compression', 'jbig'], /--compression must be mh, mr or mmr/],
    [['a.pdf', 'b.pdf', 'c.pdf', '--out', 'x.tif', '--pages', '1', '--pages', '2'], /--pages is given 2 times for 3 files/],
    [['a.pdf', '--out', 'x.tif', '--bogus'], /unknown option --bogus for faxstack.*; its options are --out VALUE/],
  ])('usage error: %j', async (argv, message) => {
    await expect(renderCommand(argv, capture().io)).rejects.toThrow(UsageError);
    await expect(renderCommand(argv, capture().io)).rejects.toThrow(message);
  });
});
