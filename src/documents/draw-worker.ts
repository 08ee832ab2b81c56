// Draw worker entry (a plain worker thread, not the render pool): PDFium only, on a bare instance
// (pdfium-bare.ts) of the module the calling thread compiled. It draws a PDF's pages from the last
// one backwards while the calling thread draws from the first, and hands each gray page over
// through a shared ring (draw-ring.ts); the calling thread scans, stamps and codes every page
// (draw-beside.ts) — so no scan or coder runs cold here, in a fresh isolate.

import { parentPort } from 'node:worker_threads';
import { DrawRing, DrawStatus } from './draw-ring.js';
import { resolutionFor, type RenderQuality } from './layout.js';
import { PageQueue } from './page-queue.js';
import { drawPageParts } from './pdf-draw.js';
import { PdfiumDocument, type CompiledPdfium } from './pdfium.js';
import { barePdfium, type BarePdfium } from './pdfium-bare.js';

/** PDFium's compiled module (sent as soon as it is compiled) and its memory cap. */
export interface DrawInstanceMessage {
  pdfium: CompiledPdfium;
  capBytes: number;
}

/** One PDF's selection, shared with the calling thread. */
export interface DrawJobMessage {
  /** The PDF, in a SharedArrayBuffer. */
  bytes: Uint8Array;
  pages: number[];
  /** PageQueue.state: this worker claims from the back. */
  queue: Int32Array;
  ring: { state: Int32Array; pixels: Uint8Array; slotBytes: number };
  quality: RenderQuality;
  reserveTop?: number;
}

let pdfium: BarePdfium | undefined;

parentPort?.on('message', (msg: DrawInstanceMessage | DrawJobMessage) => {
  if ('pdfium' in msg) {
    try {
      pdfium = barePdfium(msg.pdfium, msg.capBytes);
      pdfium.PDFiumExt_Init();
      parentPort?.postMessage('ready');
    } catch {
      pdfium = undefined; // the job finds none and stops at once: the calling thread draws every page
    }
  } else {
    void drawJob(msg);
  }
});

/** Draws the pages it claims from the back of the queue into the ring; stops at the first page it cannot draw, giving it back. */
export async function drawJob(job: DrawJobMessage, given = pdfium): Promise<void> {
  const ring = new DrawRing(job.ring.slotBytes, job.ring);
  const queue = new PageQueue(job.pages.length, 0, job.queue);
  const res = resolutionFor(job.quality);
  let doc: PdfiumDocument | undefined;
  try {
    if (!given) throw new Error('no PDFium instance');
    doc = await PdfiumDocument.open(job.bytes, given);
  } catch {
    ring.setStatus(DrawStatus.Stopped);
    return;
  }
  for (let i = queue.claim('back'); i >= 0; i = queue.claim('back')) {
    let part = 0;
    try {
      const n = job.pages[i]!;
      const page = n >= 1 && n <= doc.pageCount ? doc.page(n - 1) : null;
      if (!page) throw new Error(`page ${n} not drawn here`);
      try {
        for (const { gray, parts } of drawPageParts(page, res, job.reserveTop)) {
          if (gray.data.length > job.ring.slotBytes) throw new Error('larger than a slot');
          ring.publish({ index: i, part, parts, width: gray.width, height: gray.height }, gray.data);
          part++;
        }
      } finally {
        page.close();
      }
    } catch {
      // A page that fails or traps here is the calling thread's, from the part not yet handed over.
      ring.publish({ index: i, part, parts: 0, width: 0, height: 0 });
      ring.setStatus(DrawStatus.Stopped);
      return;
    }
  }
  try {
    doc.close();
  } catch {
    // the job is done either way
  }
  ring.setStatus(DrawStatus.Done);
}
