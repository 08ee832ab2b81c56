// Where PDFium draws a PDF page's fax pages (layout.ts places it; quarter turns, then scales):
// the same calls in every thread that draws a PDF (render-pdf.ts in the calling thread or a render
// worker, draw-worker.ts beside the calling thread), kept apart from render-pdf.ts so that the
// draw worker loads neither pdfjs's side nor the page counter.

import type { GrayPage } from './bilevel.js';
import { layoutPage, type FaxResolution, type Placement } from './layout.js';
import type { PdfiumDraw, PdfiumPage } from './pdfium.js';

/** The placement's quarter turn as drawn: a page shown landscape only because of its /Rotate 90 or 270 is turned back to how it is stored. */
export function drawnRotation(p: Placement, pageRotate: number): 0 | 90 | 270 {
  return p.rotate !== 0 && pageRotate % 180 !== 0 ? (((360 - pageRotate) % 360) as 90 | 270) : p.rotate;
}

/**
 * The fax pages one PDF page makes (more than one when a long page is split), each drawn as it is
 * asked for: a view of PDFium's memory (PdfiumPage.draw), read before the next is drawn.
 */
export function* drawPageParts(page: PdfiumPage, res: FaxResolution, reserveTop: number | undefined): Generator<{ gray: GrayPage; parts: number }> {
  for (const placement of layoutPage(page.width, page.height, res, { reserveTop })) {
    yield { gray: page.draw(placement.width, placement.height, placementDraw(page, placement)), parts: placement.parts };
  }
}

/** The matrix and clip that put a page where the layout places it (quarter turns clockwise, then scales). */
function placementDraw(page: Pick<PdfiumPage, 'width' | 'height' | 'rotate'>, p: Placement): PdfiumDraw {
  const rotate = drawnRotation(p, page.rotate);
  const { width: W, height: H } = page;
  const turned = rotate === 0 ? W : H; // width of the page after the turn
  const sx = p.drawWidth / turned;
  const sy = p.drawHeight / (rotate === 0 ? H : W);
  const ox = p.offsetX;
  const oy = p.offsetY;
  // (u, v) on the displayed page → 90°: (H − v, u); 270°: (v, W − u); then scaled and offset.
  const matrix: PdfiumDraw['matrix'] =
    rotate === 0 ? [sx, 0, 0, sy, ox, oy] : rotate === 90 ? [0, sy, -sx, 0, sx * H + ox, oy] : [0, -sy, sx, 0, ox, sy * W + oy];
  return {
    matrix,
    clip: { left: ox, right: ox + p.drawWidth, top: Math.max(p.clipTop, oy), bottom: Math.min(p.clipBottom, oy + p.drawHeight) },
  };
}
