// The library's documents: files, buffers and URLs rendered into fax pages as the service would
// send them (page selections, quality, cover page, header line), without a store or a service —
// the pages as TIFF class F, as a PDF, as PNG previews. Wraps documents/pipeline.ts's composeFax.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Bitmap } from '../codecs/index.js';
import { closeRenderPool, composeFax, countPages, fetchDocument, parsePageSelection, previewPng, selectPages, sniffFormat, type ComposedFax, type DocumentFormat, type FaxDocument, type PageMode, tiffToPdf, faxPagesFromBitmaps, faxPagesFromTiff, type FaxPages, writeTiffF } from '../documents/index.js';
import { FaxError } from '../shared/errors.js';

/** Fax quality, as the API's `faxQuality`: Low 204×98, Standard 204×196 (fine), HD 408×391. */
export type FaxQuality = 'Low' | 'Standard' | 'HD';

/** Page coding of a TIFF class F file. */
export type TiffCompression = 'mh' | 'mr' | 'mmr';

/**
 * One document: a file path, an `http(s)://` URL (a string starting with it, or a URL object),
 * its bytes, or one of these with a page selection.
 */
export type DocumentSource =
  | string
  | URL
  | Uint8Array
  | { path: string; pages?: string }
  | { url: string | URL; pages?: string }
  | { data: Uint8Array; name?: string; pages?: string };

/** Cover page fields (a cover page is rendered when any is given). */
export interface CoverPage {
  subject?: string;
  fromName?: string;
  toName?: string;
  message?: string;
  /** The sender's fax number. */
  fromNumber?: string;
  /** The recipient's fax number. */
  toNumber?: string;
}

/** The header line printed at the top of every page ("date  name  number  Page n of N"). */
export interface HeaderLine {
  fromName?: string;
  fromNumber?: string;
  /** IANA time zone of the date (default UTC). */
  timeZone?: string;
}

/** How URLs are fetched: by the SSRF-safe fetcher of the service (public addresses only). */
export interface FetchPolicy {
  /**
   * Hosts (names or IP literals) that may be reached even though they resolve to private or
   * loopback addresses — the service's `fetchAllowHosts` setting.
   */
  allowHosts?: string[];
  /** Budget for one download, redirects included (default 30 000 ms). */
  timeoutMs?: number;
  /** Largest document accepted in bytes (default 20 MiB). */
  maxBytes?: number;
}

export interface RenderOptions {
  /** Default 'Standard'. */
  quality?: FaxQuality;
  /** A cover page as page 1. */
  cover?: CoverPage;
  /** The header line on every page (default: date only); false for none (pages already fax-ready). */
  header?: HeaderLine | false;
  /** The date shown in the header line and on the cover page (default now). */
  date?: Date;
  /** Applies to URL documents. */
  fetch?: FetchPolicy;
  /** Most pages of the whole fax, cover page included (default 200). */
  maxPages?: number;
  /** Stops rendering (and downloads); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once a document is loaded and counted (`done` of `total` documents). */
  onDocument?: (done: number, total: number) => void;
}

/** How a page became black and white: text/line art thresholded, photographs dithered. */
export type PageRendering = PageMode;

const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

const bitmaps = new WeakMap<RenderedFax, { pages: Bitmap[] } | { tiff: Uint8Array }>();

/** Fax pages ready to send: page count, resolution, and the pages as TIFF-F, PDF or PNG. */
export class RenderedFax {
  /** Number of pages, cover page included. */
  readonly pageCount: number;
  /** Horizontal resolution in dots per inch (204 or 408). */
  readonly xDpi: number;
  /** Vertical resolution in lines per inch (98, 196 or 391). */
  readonly yDpi: number;
  /** Pixels per line (1728 for A4/Letter at 204 dpi, 3456 for HD). */
  readonly width: number;
  /** Per page, how it was made black and white ('text', 'photo' …); empty for pages read from a TIFF. */
  readonly renderings: readonly PageRendering[];

  /** @internal Use {@link renderFax} or {@link RenderedFax.fromTiff}. */
  constructor(pages: { count: number; xDpi: number; yDpi: number; width: number }, renderings: readonly PageRendering[]) {
    this.pageCount = pages.count;
    this.xDpi = pages.xDpi;
    this.yDpi = pages.yDpi;
    this.width = pages.width;
    this.renderings = renderings;
  }

  /**
   * Fax-ready pages from a TIFF class F file (what {@link RenderedFax.tiff} writes, or a received
   * fax), sent unchanged: no rendering, no header line added.
   */
  static fromTiff(tiff: Uint8Array): RenderedFax {
    const pages = faxPagesFromTiff(tiff);
    const r = new RenderedFax(pages, []);
    bitmaps.set(r, { tiff });
    return r;
  }

  /** The pages as one TIFF class F file (default MH coding, as most fax software expects). */
  tiff(compression: TiffCompression = 'mh'): Buffer {
    const pages = faxPagesOf(this);
    return writeTiffF(Array.from({ length: pages.count }, (_, i) => ({ bitmap: pages.page(i), xDpi: this.xDpi, yDpi: this.yDpi })), { compression });
  }

  /** The pages as a PDF, one fax page per PDF page at its true size. */
  pdf(options: { title?: string } = {}): Buffer {
    return tiffToPdf(this.tiff('mmr'), options);
  }

  /**
   * A PNG preview of page `page` (1-based) exactly as transmitted, with square pixels; `width`
   * scales it (e.g. 600 for a thumbnail).
   */
  async previewPng(page: number, options: { width?: number } = {}): Promise<Buffer> {
    if (!Number.isInteger(page) || page < 1 || page > this.pageCount) throw new FaxError('INVALID_PARAMETER', `page must be from 1 to ${this.pageCount}, got ${page}`, { field: 'page' });
    return previewPng(faxPagesOf(this).page(page - 1), { xDpi: this.xDpi, yDpi: this.yDpi, ...(options.width !== undefined ? { width: options.width } : {}) });
  }
}

/** The pages of a RenderedFax as a call consumes them (not part of the public API). */
export function faxPagesOf(fax: RenderedFax): FaxPages {
  const b = bitmaps.get(fax);
  if (!b) throw new TypeError('not a RenderedFax made by renderFax or RenderedFax.fromTiff');
  return 'tiff' in b ? faxPagesFromTiff(b.tiff) : faxPagesFromBitmaps(b.pages, fax.xDpi, fax.yDpi);
}

/**
 * Renders documents into the pages of one fax, as the service sends them: the cover page (when
 * `cover` is given) first, then each document's selected pages at the quality's resolution, the
 * header line on every page. Rendering runs in worker threads with a deadline per document.
 *
 * @throws FaxError — INVALID_FILE_FORMAT, CONVERSION_FAILED, IMAGE_NOT_FOUND (a missing file),
 * DOWNLOAD_FAILED (a URL refused or unreachable), INVALID_PARAMETER (a bad page selection).
 */
export async function renderFax(documents: readonly DocumentSource[], options: RenderOptions = {}): Promise<RenderedFax> {
  const loaded: FaxDocument[] = [];
  for (const [i, d] of documents.entries()) {
    loaded.push(await loadDocument(d, i, options));
    options.onDocument?.(i + 1, documents.length);
  }
  const date = options.date ?? new Date();
  const header = options.header === false ? undefined : { senderName: options.header?.fromName, senderNumber: options.header?.fromNumber, timeZone: options.header?.timeZone, dateTime: date };
  const c = options.cover;
  const composed: ComposedFax = await composeFax({
    documents: loaded,
    quality: options.quality ?? 'Standard',
    ...(c ? { cover: { subject: c.subject, fromName: c.fromName, toName: c.toName, message: c.message, senderNumber: c.fromNumber, toNumber: c.toNumber, date } } : {}),
    ...(header ? { header } : {}),
    ...(options.maxPages !== undefined ? { maxPages: options.maxPages } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const r = new RenderedFax({ count: composed.pages.length, xDpi: composed.xDpi, yDpi: composed.yDpi, width: composed.width }, composed.info.map((p) => p.mode));
  bitmaps.set(r, { pages: composed.pages });
  return r;
}

/**
 * Stops the render and encode worker threads (they also stop by themselves after 30 s idle).
 * Call it at the end of a script so the process exits at once; the next render starts them again.
 */
export async function closeWorkers(): Promise<void> {
  await closeRenderPool();
}

async function loadDocument(d: DocumentSource, index: number, o: RenderOptions): Promise<FaxDocument> {
  const field = `documents[${index}]`;
  let bytes: Buffer;
  let name: string;
  let pages: string | undefined;
  const asUrl = (u: string | URL) => (typeof u === 'string' ? u : u.href);
  if (typeof d === 'string' && /^https?:\/\//i.test(d)) ({ bytes, name } = await download(d, o));
  else if (d instanceof URL) ({ bytes, name } = await download(d.href, o));
  else if (typeof d === 'string') ({ bytes, name } = await readPath(d));
  else if (d instanceof Uint8Array) ({ bytes, name } = { bytes: Buffer.from(d.buffer, d.byteOffset, d.byteLength), name: field });
  else if ('path' in d) ({ bytes, name } = await readPath(d.path), pages = d.pages);
  else if ('url' in d) ({ bytes, name } = await download(asUrl(d.url), o), pages = d.pages);
  else ({ bytes, name } = { bytes: Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength), name: d.name ?? field }, pages = d.pages);
  const format: DocumentFormat | null = sniffFormat(bytes);
  if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${name} is not a PDF, TIFF, PNG, JPEG, GIF, WebP, BMP or text file`, { field });
  const count = countPages(bytes, format);
  const selection = pages === undefined ? null : parsePageSelection(pages, `${field}.pages`);
  return { bytes, format, pages: selectPages(selection, count, name) };
}

async function readPath(path: string): Promise<{ bytes: Buffer; name: string }> {
  try {
    return { bytes: await readFile(path), name: basename(path) };
  } catch (err) {
    throw new FaxError('IMAGE_NOT_FOUND', `${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function download(url: string, o: RenderOptions): Promise<{ bytes: Buffer; name: string }> {
  const f = o.fetch ?? {};
  const got = await fetchDocument(url, {
    maxBytes: f.maxBytes ?? DEFAULT_MAX_BYTES, timeoutMs: f.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS, allowHosts: f.allowHosts ?? [],
  });
  return { bytes: got.data, name: url };
}
