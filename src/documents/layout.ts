// Fax page geometry: the resolutions of docs/documents.md (T.30 standard / fine /
// superfine, T.4 2.2 and Annex I scan densities), A4 and Letter page lengths, and where a
// source page lands on fax pages: at its printed size, rotated, shrunk to fit, or split.

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
 * A page that would have to shrink below this fraction of its width-limited size to fit one fax
 * page is split into several pages instead (receipts, web-page captures); Legal, A3, B-sizes and
 * everything squatter are scaled onto one page.
 */
const SPLIT_BELOW_WIDTH_FRACTION = 0.5;
/** Most fax pages one source page is split into; longer pages are scaled down to fit this many. */
export const MAX_SPLIT_PAGES = 10;
/** Pixels per inch assumed for an image that states no density (the fax grid across: 1 pixel → 1 fax pixel). */
export const NOMINAL_IMAGE_DPI = 204;
/** An image of unknown density whose longer side is under this many inches is enlarged to it (icons, 162 × 20 labels). */
export const MIN_IMAGE_INCHES = 1;
/** An image of unknown density at least this many pixels on its shorter side, and no longer than PAGE_LIKE_MAX_ASPECT, is a page. */
const PAGE_LIKE_MIN_PIXELS = 400;
/** Legal is 1.65, a 16:9 screenshot 1.78; labels, banners and receipts are longer. */
const PAGE_LIKE_MAX_ASPECT = 1.8;
/** A landscape page is turned only when upright it would have to shrink below 1 / this (Letter-wide half-letter stays upright). */
const ROTATE_ABOVE_LINE = 1.05;
/** A split that would spill less than this fraction of a page onto its last part is shrunk onto one part fewer. */
const SPLIT_SLACK = 0.05;

/** How a source page was fitted: at its own size, shrunk (or, for page-like images of unknown density, grown) to the page, or split. */
export type LayoutFit = 'natural' | 'fit' | 'split';

/** Where a source page lands on one fax page. */
export interface Placement {
  /** Fax page size in pixels. */
  width: number;
  height: number;
  paper: Paper;
  /**
   * Clockwise rotation applied to the source first: 270 (a quarter turn counter-clockwise, top
   * edge to the left, as printer drivers put landscape pages on portrait paper) for full-size
   * landscape pages. The PDF renderer turns the other way when that undoes a page's own /Rotate.
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
  /** Printed size ÷ the source's own size (1 = natural size; for images of unknown density, relative to NOMINAL_IMAGE_DPI). */
  scale: number;
  fit: LayoutFit;
}

interface LayoutOptions {
  /** Lines kept free at the top of every page for the header line (content is fitted below). */
  reserveTop?: number;
  /**
   * Source units per inch: 72 (the default) for PDF points, 1 for inches, an image's own density;
   * null for pixels of unknown density (taken at NOMINAL_IMAGE_DPI, and page-like images fitted to the page).
   */
  unitsPerInch?: number | null;
}

/**
 * Lays out one source page of `width` × `height` (units of `opts.unitsPerInch`, equal in both
 * directions) on fax pages of `res`. The rules, in order:
 * - full-size landscape → turned a quarter counter-clockwise (top edge on the left): wider than
 *   tall, too wide for the line at its own size (by 5 %), and at least half the page box in both
 *   directions once turned (A4/Letter/Legal/A3 landscape, 11 × 5 in). Labels, banners and cards
 *   keep their orientation and are shrunk to the line if they must;
 * - paper (A4 or Letter length) chosen by the closest aspect ratio;
 * - never enlarged: a page that fits keeps its printed size, centred across, top-aligned below
 *   the header band; a larger one is shrunk to the line width or the page length, whichever binds
 *   (aspect ratio kept). Images of unknown density are the exception: one shaped like a page
 *   (PAGE_LIKE_*: a scan, a photo, a screenshot) is turned if landscape and fitted to the page,
 *   up or down; any other is taken at NOMINAL_IMAGE_DPI, a tiny one enlarged to MIN_IMAGE_INCHES;
 * - a portrait strip that would have to shrink below half its width-limited size is instead split
 *   into consecutive pages at that size (at most MAX_SPLIT_PAGES; beyond that shrunk to fit them).
 */
export function layoutPage(width: number, height: number, res: FaxResolution, opts: LayoutOptions = {}): Placement[] {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RangeError(`layoutPage: page size must be positive and finite, got ${width}×${height}`);
  }
  const upi = opts.unitsPerInch === undefined ? 72 : opts.unitsPerInch;
  if (upi !== null && !(upi > 0 && Number.isFinite(upi))) throw new RangeError(`layoutPage: unitsPerInch must be positive, got ${upi}`);
  const known = upi !== null;
  // Source size in inches (nominal ones for images of unknown density).
  const wIn = width / (upi ?? NOMINAL_IMAGE_DPI);
  const hIn = height / (upi ?? NOMINAL_IMAGE_DPI);
  const lineIn = res.width / res.xDpi;
  const boxFor = (paper: Paper, top: number): number => (pageLines(paper, res) - top) / res.yDpi;
  const topFor = (paper: Paper): number => Math.min(Math.max(0, Math.round(opts.reserveTop ?? 0)), pageLines(paper, res) >> 1);
  const pageSized = (w: number, h: number): boolean => {
    const paper = closestPaper(h / w);
    return w >= lineIn / 2 && h >= boxFor(paper, topFor(paper)) / 2;
  };

  // An image of unknown density shaped like a page (a scan, a photo, a screenshot) is one: fitted whole.
  const pageLike = upi === null && Math.min(width, height) >= PAGE_LIKE_MIN_PIXELS && Math.max(width, height) / Math.min(width, height) <= PAGE_LIKE_MAX_ASPECT;
  const rotate: 0 | 270 = wIn > hIn && (pageLike || (wIn > lineIn * ROTATE_ABOVE_LINE && pageSized(hIn, wIn))) ? 270 : 0;
  const w = rotate ? hIn : wIn;
  const h = rotate ? wIn : hIn;
  const paper = closestPaper(h / w);
  const pageHeight = pageLines(paper, res);
  const top = topFor(paper);
  const boxH = boxFor(paper, top);
  const fitWidth = lineIn / w;
  const fitPage = Math.min(fitWidth, boxH / h);
  // The largest scale allowed: 1, or for images of unknown density, the page (page-like) or the minimum size.
  let cap = 1;
  if (!known) {
    if (pageLike) cap = fitPage;
    else if (Math.max(w, h) < MIN_IMAGE_INCHES) cap = MIN_IMAGE_INCHES / Math.max(w, h);
  }
  const widthScale = Math.min(cap, fitWidth);
  let scale = Math.min(cap, fitPage);
  let fit: LayoutFit = scale === 1 ? 'natural' : 'fit';
  let parts = 1;
  if (h > w && scale / widthScale < SPLIT_BELOW_WIDTH_FRACTION) {
    fit = 'split';
    scale = widthScale;
    parts = Math.ceil((h * scale) / boxH - SPLIT_SLACK);
    if (parts > MAX_SPLIT_PAGES) parts = MAX_SPLIT_PAGES;
    scale = Math.min(scale, (boxH * parts) / h);
  }
  const drawWidth = Math.max(1, Math.min(res.width, Math.round(w * scale * res.xDpi)));
  const drawHeight = Math.max(1, Math.min(parts * (pageHeight - top), Math.round(h * scale * res.yDpi)));
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
      scale,
      fit,
    });
  }
  return out;
}
