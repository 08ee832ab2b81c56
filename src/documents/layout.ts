// Fax page geometry: the resolutions of DESIGN.md's quality table (T.30 standard / fine /
// superfine, T.4 2.2 and Annex I scan densities), A4 and Letter page lengths, and where a
// source page lands on fax pages: rotated, scaled with its aspect ratio kept, or split.

export type RenderQuality = 'Low' | 'Standard' | 'HD';
export type Paper = 'A4' | 'Letter';

export interface FaxResolution {
  /** Pixels per inch across the line (T.4: 1728 pixels on 215 mm ≈ 204 dpi). */
  xDpi: number;
  /** Lines per inch (T.4: 3.85, 7.7 or 15.4 lines/mm ≈ 98, 196, 391). */
  yDpi: number;
  /** Pixels per line. */
  width: number;
  /** Lines per millimetre, the exact T.4 figure the page lengths are computed from. */
  linesPerMm: number;
}

export const RESOLUTIONS: Readonly<Record<RenderQuality, FaxResolution>> = {
  Low: { xDpi: 204, yDpi: 98, width: 1728, linesPerMm: 3.85 },
  Standard: { xDpi: 204, yDpi: 196, width: 1728, linesPerMm: 7.7 },
  HD: { xDpi: 408, yDpi: 391, width: 3456, linesPerMm: 15.4 },
};

export function resolutionFor(quality: RenderQuality): FaxResolution {
  const r = RESOLUTIONS[quality];
  if (!r) throw new RangeError(`quality must be Low, Standard or HD, got ${JSON.stringify(quality)}`);
  return r;
}

/** Paper length in millimetres and its aspect ratio (length / width) as printed. */
const PAPER: Readonly<Record<Paper, { lengthMm: number; aspect: number }>> = {
  A4: { lengthMm: 297, aspect: 297 / 210 },
  Letter: { lengthMm: 279.4, aspect: 279.4 / 215.9 },
};

/** Lines of a page of this paper: A4 1143 / 2287 / 4574, Letter 1076 / 2151 / 4303. */
export function pageLines(paper: Paper, res: FaxResolution): number {
  return Math.round(PAPER[paper].lengthMm * res.linesPerMm);
}

/** The paper whose aspect ratio is closest (on a log scale) to a portrait page's length / width. */
export function closestPaper(aspect: number): Paper {
  const dA4 = Math.abs(Math.log(aspect / PAPER.A4.aspect));
  const dLetter = Math.abs(Math.log(aspect / PAPER.Letter.aspect));
  return dA4 <= dLetter ? 'A4' : 'Letter';
}

/**
 * A page that would have to shrink below this fraction of the line width to fit one fax page is
 * split into several pages at full width instead (receipts, web-page captures); Legal, A3,
 * B-sizes and everything squatter are scaled onto one page.
 */
export const SPLIT_BELOW_WIDTH_FRACTION = 0.5;
/** Most fax pages one source page is split into; longer pages are scaled down to fit this many. */
export const MAX_SPLIT_PAGES = 10;

/** Where a source page lands on one fax page. */
export interface Placement {
  /** Fax page size in pixels. */
  width: number;
  height: number;
  paper: Paper;
  /**
   * Clockwise rotation applied to the source first: 270 (a quarter turn counter-clockwise, top
   * edge to the left, as printer drivers put landscape pages on portrait paper) for landscape
   * pages. The PDF renderer turns the other way when that undoes a page's own /Rotate.
   */
  rotate: 0 | 90 | 270;
  /** Size of the whole (rotated) source on the fax grid, in pixels; may be taller than the page when split. */
  drawWidth: number;
  drawHeight: number;
  /** Top-left corner of the drawn source on this page (offsetY < 0 on the continuation pages of a split). */
  offsetX: number;
  offsetY: number;
  /** The rows of this page the content may cover: [clipTop, clipBottom). Above clipTop is the header band. */
  clipTop: number;
  clipBottom: number;
  /** 0-based index of this fax page among the pages the source page was split into, and their number. */
  part: number;
  parts: number;
}

export interface LayoutOptions {
  /** Lines kept free at the top of every page for the header line (content is fitted below). */
  reserveTop?: number;
}

/**
 * Lays out one source page of `width` × `height` (any unit, equal in both directions: points,
 * or pixels of an image with square pixels) on fax pages of `res`:
 * - landscape (wider than tall) → turned a quarter counter-clockwise (top edge on the left);
 * - paper (A4 or Letter length) chosen by the closest aspect ratio;
 * - scaled up or down to fill the line width or the page length, whichever binds first, aspect
 *   ratio kept, centred across, top-aligned below the reserved header band;
 * - a page so long that it would use less than half the line width is instead split at full
 *   width into consecutive pages (at most MAX_SPLIT_PAGES; beyond that scaled to fit them).
 */
export function layoutPage(width: number, height: number, res: FaxResolution, opts: LayoutOptions = {}): Placement[] {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RangeError(`layoutPage: page size must be positive and finite, got ${width}×${height}`);
  }
  const rotate: 0 | 270 = width > height ? 270 : 0;
  const w = rotate ? height : width;
  const h = rotate ? width : height;
  const paper = closestPaper(h / w);
  const pageHeight = pageLines(paper, res);
  const top = Math.min(Math.max(0, Math.round(opts.reserveTop ?? 0)), pageHeight >> 1);
  // Work in inches of the fax page: the content box is width/xDpi × (height − top)/yDpi.
  const boxW = res.width / res.xDpi;
  const boxH = (pageHeight - top) / res.yDpi;
  const fitWidth = boxW / w; // inches per source unit when the width binds
  const fitHeight = boxH / h;
  let scale = Math.min(fitWidth, fitHeight);
  let parts = 1;
  if (fitHeight / fitWidth < SPLIT_BELOW_WIDTH_FRACTION) {
    scale = fitWidth;
    parts = Math.ceil((h * scale) / boxH - 1e-6);
    if (parts > MAX_SPLIT_PAGES) {
      parts = MAX_SPLIT_PAGES;
      scale = (boxH * MAX_SPLIT_PAGES) / h;
    }
  }
  const drawWidth = Math.max(1, Math.min(res.width, Math.round(w * scale * res.xDpi)));
  const drawHeight = Math.max(1, Math.round(h * scale * res.yDpi));
  const offsetX = (res.width - drawWidth) >> 1;
  const band = pageHeight - top;
  const out: Placement[] = [];
  for (let part = 0; part < parts; part++) {
    out.push({
      width: res.width,
      height: pageHeight,
      paper,
      rotate,
      drawWidth,
      drawHeight,
      offsetX,
      offsetY: top - part * band,
      clipTop: top,
      clipBottom: pageHeight,
      part,
      parts,
    });
  }
  return out;
}
