import { describe, expect, it } from 'vitest';
import { PAGE_SHAPES as SHAPES } from '../../test/kit/page-shapes.js';
import { closestPaper, layoutPage, MAX_SPLIT_PAGES, NOMINAL_IMAGE_DPI, pageLines, RESOLUTIONS, resolutionFor } from './layout.js';

describe('resolutions (docs/documents.md resolutions)', () => {
  it.each([
    ['Low', 204, 98, 1728],
    ['Standard', 204, 196, 1728],
    ['HD', 408, 391, 3456],
  ] as const)('%s is %i × %i dpi, %i pixels per line', (q, x, y, w) => {
    expect(resolutionFor(q)).toMatchObject({ xDpi: x, yDpi: y, width: w });
  });

  it('refuses an unknown quality', () => {
    expect(() => resolutionFor('Ultra' as never)).toThrow(/Low, Standard or HD/);
  });

  it('A4 and Letter lengths follow the T.4 line densities', () => {
    expect([pageLines('A4', RESOLUTIONS.Low), pageLines('A4', RESOLUTIONS.Standard), pageLines('A4', RESOLUTIONS.HD)]).toEqual([1143, 2287, 4574]);
    expect([pageLines('Letter', RESOLUTIONS.Low), pageLines('Letter', RESOLUTIONS.Standard), pageLines('Letter', RESOLUTIONS.HD)]).toEqual([1076, 2151, 4303]);
  });
});

describe('layoutPage', () => {
  const fine = RESOLUTIONS.Standard;

  it('chooses the paper by aspect ratio', () => {
    expect(closestPaper(297 / 210)).toBe('A4');
    expect(closestPaper(11 / 8.5)).toBe('Letter');
    expect(closestPaper(1)).toBe('Letter');
    expect(closestPaper(2)).toBe('A4');
  });

  it('puts an A4 page at full length, centred, about 1:1', () => {
    const [p, ...rest] = layoutPage(595.28, 841.89, fine);
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ width: 1728, height: 2287, paper: 'A4', rotate: 0, offsetY: 0, parts: 1 });
    expect(p!.drawHeight).toBe(2287);
    // 210 mm at 204 dpi ≈ 1687 pixels, centred on the 215 mm line
    expect(p!.drawWidth).toBeGreaterThan(1680);
    expect(p!.drawWidth).toBeLessThan(1700);
    expect(p!.offsetX).toBe((1728 - p!.drawWidth) >> 1);
  });

  it('fits a Letter page by its width', () => {
    const [p] = layoutPage(612, 792, fine);
    expect(p).toMatchObject({ paper: 'Letter', height: 2151, drawWidth: 1728, offsetX: 0 });
  });

  it('keeps the aspect ratio at non-square resolutions', () => {
    for (const res of Object.values(RESOLUTIONS)) {
      const [p] = layoutPage(612, 792, res);
      const inchesWide = p!.drawWidth / res.xDpi;
      const inchesHigh = p!.drawHeight / res.yDpi;
      expect(inchesHigh / inchesWide).toBeCloseTo(792 / 612, 2);
    }
  });

  it('turns landscape pages a quarter counter-clockwise and lays them out as portrait', () => {
    const [p] = layoutPage(841.89, 595.28, fine);
    expect(p).toMatchObject({ rotate: 270, paper: 'A4', height: 2287 });
  });

  it('fits content below a reserved header band', () => {
    const [p] = layoutPage(595.28, 841.89, fine, { reserveTop: 40 });
    expect(p).toMatchObject({ offsetY: 40, clipTop: 40 });
    expect(p!.offsetY + p!.drawHeight).toBeLessThanOrEqual(2287);
  });

  it('scales Legal (aspect 1.65) onto one page', () => {
    const parts = layoutPage(612, 1008, fine);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.drawHeight).toBeLessThanOrEqual(parts[0]!.height);
    expect(parts[0]!.drawWidth).toBeLessThan(1728);
  });

  it('splits a receipt (80 × 600 mm) at its printed width into consecutive pages', () => {
    const mm = 72 / 25.4;
    const parts = layoutPage(80 * mm, 600 * mm, fine);
    expect(parts.length).toBeGreaterThan(1);
    for (const [i, p] of parts.entries()) {
      expect(p).toMatchObject({ part: i, parts: parts.length, fit: 'split', rotate: 0 });
      expect(p.offsetY + i * p.height).toBe(0);
    }
    // 80 mm across at 8 pixels per mm, give or take the T.4 rounding; the content just covers the pages
    expect(Math.abs(parts[0]!.drawWidth - 640)).toBeLessThan(10);
    const last = parts[parts.length - 1]!;
    expect(last.drawHeight).toBeGreaterThan((parts.length - 1) * last.height);
    expect(last.drawHeight).toBeLessThanOrEqual(parts.length * last.height);
  });

  it(`caps a split at ${MAX_SPLIT_PAGES} pages by scaling down`, () => {
    const parts = layoutPage(10, 100_000, fine);
    expect(parts).toHaveLength(MAX_SPLIT_PAGES);
    expect(parts[0]!.drawHeight).toBeLessThanOrEqual(MAX_SPLIT_PAGES * parts[0]!.height);
    expect(parts[0]!.scale).toBeLessThan(1);
  });

  it('shrinks a strip that just spills over onto one page fewer instead of a nearly empty last page', () => {
    // 2.02 A4 lengths long and 3 in wide: two pages, scaled by 0.99
    const parts = layoutPage(216, 2.02 * 841.89, fine);
    expect(parts).toHaveLength(2);
    expect(parts[0]!.scale).toBeGreaterThan(0.98);
  });

  it('reads an image of unknown density that is not page-like at the nominal density', () => {
    const [p] = layoutPage(900, 300, fine, { unitsPerInch: null });
    expect(p).toMatchObject({ rotate: 0, drawWidth: 900, scale: 1, fit: 'natural' });
    expect(Math.abs(p!.drawHeight - 300 * (196 / NOMINAL_IMAGE_DPI))).toBeLessThanOrEqual(1);
  });

  it('refuses a bad density', () => {
    expect(() => layoutPage(100, 100, fine, { unitsPerInch: 0 })).toThrow(RangeError);
  });

  it('refuses empty or absurd sizes', () => {
    expect(() => layoutPage(0, 100, fine)).toThrow(RangeError);
    expect(() => layoutPage(100, Number.NaN, fine)).toThrow(RangeError);
  });
});

describe.each([['Standard'], ['Low'], ['HD']] as const)('page shapes at %s', (quality) => {
  const res = RESOLUTIONS[quality];
  it.each(SHAPES)('$name', (c) => {
    const parts = layoutPage(c.width, c.height, res, { unitsPerInch: c.upi });
    expect(parts).toHaveLength(c.parts);
    const p = parts[0]!;
    expect(p).toMatchObject({ rotate: c.rotate, parts: c.parts, width: res.width });
    if (c.fit !== null) expect(p.fit).toBe(c.fit);
    if (typeof c.scale === 'number') expect(p.scale).toBeCloseTo(c.scale, 6);
    else {
      expect(p.scale).toBeGreaterThanOrEqual(c.scale[0]);
      expect(p.scale).toBeLessThanOrEqual(c.scale[1]);
    }
    // the drawn size is the source at that scale on the fax grid (1 pixel at least), within the line
    const upi = c.upi ?? NOMINAL_IMAGE_DPI;
    const [w, h] = c.rotate ? [c.height, c.width] : [c.width, c.height];
    expect(Math.abs(p.drawWidth - Math.max(1, (w / upi) * p.scale * res.xDpi))).toBeLessThanOrEqual(1);
    expect(Math.abs(p.drawHeight - Math.max(1, (h / upi) * p.scale * res.yDpi))).toBeLessThanOrEqual(1);
    expect(p.offsetX + p.drawWidth).toBeLessThanOrEqual(res.width);
    if (c.parts === 1) expect(p.drawHeight).toBeLessThanOrEqual(p.height);
  });
});
