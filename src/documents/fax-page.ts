// One page of the fax finished, the same in every thread that makes pages (render-document.ts
// as each page is drawn, pipeline.ts for the pages drawn whole first): the header line stamped
// ("Page n of N", docs/documents.md), then the page coded for the TIFF.

import type { Bitmap } from '../codecs/index.js';
import { encodePage, type EncodeSettings } from './encode-worker.js';
import { headerText, stampHeader, type HeaderAtlas, type HeaderInfo } from './header-line.js';

/** What every page of one fax gets. */
export interface PageFinish {
  /** Pages of the whole fax, cover included (the N of the header line). */
  total: number;
  header?: { info: HeaderInfo; atlas: HeaderAtlas; columns: number };
  /** How each page is coded; without it the pages stay bitmaps. */
  encode?: EncodeSettings;
}

/** Stamps page `n` (1-based) of the fax and codes it as `f` says; the coded page, if coded. */
export function finishPage(bitmap: Bitmap, n: number, f: PageFinish): Uint8Array | undefined {
  if (f.header) stampHeader(bitmap, headerText(f.header.info, n, f.total, f.header.columns), f.header.atlas);
  return f.encode ? encodePage(bitmap, f.encode) : undefined;
}
