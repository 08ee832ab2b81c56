// Document handling below the job pipeline: safe download of fileUrl attachments, format
// sniffing, page counts and page selections, rendering to bilevel fax pages (PDF, images, text,
// cover page, header line), TIFF-F, encoding in worker threads and previews.

export * from './address-policy.js';
export * from './fetch.js';
export * from './page-count.js';
export * from './page-ranges.js';
export * from './sniff.js';
export { decodeUtf8 } from './render-text.js';
export { RESOLUTIONS, resolutionFor, pageLines, layoutPage, type FaxResolution, type Paper, type Placement, type RenderQuality } from './layout.js';
export { RenderTimeout, PAGE_CPU_BUDGET_MS, PAGE_WALL_BUDGET_MS, type BudgetOptions } from './render-budget.js';
export { toBilevel, classifyPage, thresholdPage, ditherPage, type BilevelMode, type GrayPage } from './bilevel.js';
export { coverPagePdf, type CoverInfo } from './cover-page.js';
export { addInk, LETTERHEAD_TOP_MM, type Letterhead } from './letterhead.js';
export { checkCoverTemplate, fillCoverTemplate, templateCoverPdf, templateValues, TEMPLATE_FIELDS, MAX_TEMPLATE_CHARS, type TemplateField } from './cover-template.js';
export { headerBandLines, headerText, writeHeaderAtlases, type HeaderInfo } from './header-line.js';
export {
  closeRenderPool,
  configureRenderPool,
  startRenderPool,
  oneShotHelpers,
  helpersPossible,
  oneShotDrawer,
  startDrawHelper,
  closeDrawHelper,
  composeFax,
  faxTiff,
  renderFaxTiff,
  renderFaxTiffParts,
  renderDocument,
  renderDocumentPages,
  DOCUMENT_TIMEOUT_MS,
  MAX_FAX_PAGES,
  type ComposeOptions,
  type ComposedFax,
  type FaxTiff,
  type FaxDocument,
  type RenderPoolOptions,
  type PageMode,
  type RenderedPage,
} from './pipeline.js';
export type { EncodeSettings, FaxCompression } from './encode-worker.js';
export { previewPng, type PreviewOptions } from './preview.js';
export { adoptPdfiumCompile, writePdfiumCache, UNUSED_EXPORTS_REMOVED, type CompiledPdfium, type EarlyPdfiumCompile } from './pdfium.js';
export { removeUnusedExports, type BinaryenApi } from './pdfium-exports.js';
export { endsWithEofb, faxPagesFromBitmaps, faxPagesFromTiff, type FaxPages } from './fax-pages.js';
export { tiffToPdf } from './fax-pdf.js';
export { writeTiffF, type TiffCompression, type TiffPageInput, type WriteTiffOptions } from './tiff-f.js';
export { readTiff, readTiffDirectories, TiffError, type TiffDirectory, type TiffPage } from './tiff-read.js';
