// Multi-strip old-style JPEG TIFFs (Compression 6) for the tests (test kit: never shipped). Nothing
// in Debian writes OJPEG (libtiff's tiffcp only reads it), so one is made the way 1990s writers laid
// it out, from real JPEG coding: each strip is encoded alone by sharp (libjpeg-turbo, baseline, the
// standard Huffman tables of T.81 Annex K, so every strip shares one set of tables), and its
// entropy-coded data is one restart interval: DC predictors start at 0 and the data is byte-aligned,
// exactly what a restart interval holds. The tables go to JPEGQTables/JPEGDCTables/JPEGACTables
// (one offset per component), the strips to StripOffsets; readers put RSTn between the strips.
// Tiled files (`tile`) code each tile alone the same way, edge tiles padded with white to the
// tile's size, and list them in TileOffsets in row-major order.

import sharp from 'sharp';

export interface OjpegTiffOptions {
  /** A multiple of 16 (one 4:2:0 MCU row). Ignored with `tile`. */
  rowsPerStrip: number;
  /** Tiles of this size (multiples of 16) instead of strips. */
  tile?: { width: number; height: number };
  /** ReferenceBlackWhite (532), six values written as RATIONALs. */
  referenceBlackWhite?: number[];
  /** TIFF Orientation (274); none written when absent. */
  orientation?: number;
  /**
   * As libtiff's ojpeg_chewey_subsamp21_multi_strip.tiff: JPEGInterchangeFormat holds the
   * encoder's stream up to its frame and tables, the first strip opens with its scan header.
   */
  interchangeHeader?: boolean;
}

interface Coded {
  /** 8-bit quantization tables by id, 64 bytes in zigzag order. */
  q: Map<number, Buffer>;
  /** Huffman tables by class << 4 | id: 16 counts then the values. */
  huffman: Map<number, Buffer>;
  /** Per frame component: its quantization table id. */
  tq: number[];
  /** Per scan component: its DC table id << 4 | AC table id. */
  tda: number[];
  scan: Buffer;
  /** The SOS segment. */
  sos: Buffer;
  /** Everything before the SOS segment. */
  head: Buffer;
  /** Where the frame header (SOF0) starts. */
  sofAt: number;
}

/** An RGB raster (3 bytes a pixel) as a little-endian OJPEG TIFF, YCbCr 4:2:0. */
export async function ojpegTiff(rgb: Buffer, width: number, height: number, opts: OjpegTiffOptions): Promise<Buffer> {
  const strips: Coded[] = [];
  const code = async (left: number, top: number, w: number, h: number, padTo?: { width: number; height: number }): Promise<void> => {
    let img = sharp(rgb, { raw: { width, height, channels: 3 } }).extract({ left, top, width: w, height: h });
    if (padTo) img = sharp(await img.raw().toBuffer(), { raw: { width: w, height: h, channels: 3 } }).extend({ right: padTo.width - w, bottom: padTo.height - h, background: '#ffffff' });
    strips.push(parseJpeg(await img.jpeg({ quality: 90, chromaSubsampling: '4:2:0', optimiseCoding: false }).toBuffer()));
  };
  const tile = opts.tile;
  if (tile) {
    for (let top = 0; top < height; top += tile.height) {
      for (let left = 0; left < width; left += tile.width) await code(left, top, Math.min(tile.width, width - left), Math.min(tile.height, height - top), tile);
    }
  } else {
    for (let top = 0; top < height; top += opts.rowsPerStrip) await code(0, top, width, Math.min(opts.rowsPerStrip, height - top));
  }
  const first = strips[0]!;
  if (opts.interchangeHeader) {
    first.scan = Buffer.concat([first.sos, first.scan]);
    first.head.writeUInt16BE(height, first.sofAt + 5); // the frame is the whole image's, not the strip's
  }
  for (const s of strips) {
    if (JSON.stringify([...s.q, ...s.huffman, s.tq, s.tda, s.sos]) !== JSON.stringify([...first.q, ...first.huffman, first.tq, first.tda, first.sos])) {
      throw new Error('the strips were coded with different tables');
    }
  }
  // Data area from byte 8: the tables, then the strips; the IFD after them.
  const blobs: Buffer[] = [];
  let at = 8;
  const place = (b: Buffer): number => {
    blobs.push(b);
    at += b.length;
    return at - b.length;
  };
  const qAt = new Map([...first.q].map(([id, t]) => [id, place(t)]));
  const hAt = new Map([...first.huffman].map(([k, t]) => [k, place(t)]));
  const headAt = opts.interchangeHeader ? place(first.head) : 0;
  const stripAt = strips.map((s) => place(s.scan));
  const entries: Entry[] = [
    [256, LONG, [width]],
    [257, LONG, [height]],
    [258, SHORT, [8, 8, 8]],
    [259, SHORT, [6]],
    [262, SHORT, [6]], // YCbCr
    ...(tile ? [] : ([[273, LONG, stripAt]] as Entry[])),
    ...(opts.orientation === undefined ? [] : [[274, SHORT, [opts.orientation]] as Entry]),
    [277, SHORT, [3]],
    ...(tile ? [] : ([[278, LONG, [opts.rowsPerStrip]], [279, LONG, strips.map((s) => s.scan.length)]] as Entry[])),
    [284, SHORT, [1]],
    ...(tile
      ? ([[322, SHORT, [tile.width]], [323, SHORT, [tile.height]], [324, LONG, stripAt], [325, LONG, strips.map((s) => s.scan.length)]] as Entry[])
      : []),
    [512, SHORT, [1]], // JPEGProc: baseline
    ...(opts.interchangeHeader ? ([[513, LONG, [headAt]], [514, LONG, [first.head.length]]] as Entry[]) : []),
    [519, LONG, first.tq.map((id) => qAt.get(id)!)],
    [520, LONG, first.tda.map((t) => hAt.get(t >> 4)!)],
    [521, LONG, first.tda.map((t) => hAt.get(0x10 | (t & 15))!)],
    [530, SHORT, [2, 2]],
    ...(opts.referenceBlackWhite ? [[532, RATIONAL, opts.referenceBlackWhite] as Entry] : []),
  ];
  const header = Buffer.from([0x49, 0x49, 42, 0, 0, 0, 0, 0]);
  header.writeUInt32LE(at + (at % 2), 4);
  return Buffer.concat([header, ...blobs, Buffer.alloc(at % 2), writeIfd(entries, at + (at % 2))]);
}

const SHORT = 3;
const LONG = 4;
/** Written as value / 1. */
const RATIONAL = 5;
type Entry = [tag: number, type: number, values: number[]];

function writeIfd(entries: Entry[], at: number): Buffer {
  const head = Buffer.alloc(2 + 12 * entries.length + 4);
  const extra: Buffer[] = [];
  let extraAt = at + head.length;
  head.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, values], i) => {
    const size = type === SHORT ? 2 : type === RATIONAL ? 8 : 4;
    const data = Buffer.alloc(Math.max(4, size * values.length));
    values.forEach((v, j) => {
      if (size === 2) data.writeUInt16LE(v, 2 * j);
      else if (size === 4) data.writeUInt32LE(v, 4 * j);
      else {
        data.writeUInt32LE(v, 8 * j);
        data.writeUInt32LE(1, 8 * j + 4);
      }
    });
    const e = 2 + 12 * i;
    head.writeUInt16LE(tag, e);
    head.writeUInt16LE(type, e + 2);
    head.writeUInt32LE(values.length, e + 4);
    if (data.length === 4) data.copy(head, e + 8);
    else {
      head.writeUInt32LE(extraAt, e + 8);
      extra.push(data);
      extraAt += data.length;
    }
  });
  return Buffer.concat([head, ...extra]);
}

/** The tables, component mapping and entropy-coded data of a baseline JPEG (T.81 B.2). */
function parseJpeg(jpeg: Buffer): Coded {
  const out: Coded = { q: new Map(), huffman: new Map(), tq: [], tda: [], scan: Buffer.alloc(0), sos: Buffer.alloc(0), head: Buffer.alloc(0), sofAt: 0 };
  let i = 2;
  for (;;) {
    const m = jpeg[i + 1]!;
    const end = i + 2 + jpeg.readUInt16BE(i + 2);
    const body = jpeg.subarray(i + 4, end);
    if (m === 0xdb) {
      for (let k = 0; k < body.length; k += 65) {
        if (body[k]! >> 4 !== 0) throw new Error('16-bit quantization table');
        out.q.set(body[k]! & 15, Buffer.from(body.subarray(k + 1, k + 65)));
      }
    } else if (m === 0xc4) {
      for (let k = 0; k < body.length; ) {
        const n = body.subarray(k + 1, k + 17).reduce((a, b) => a + b, 0);
        out.huffman.set(body[k]!, Buffer.from(body.subarray(k + 1, k + 17 + n)));
        k += 17 + n;
      }
    } else if (m === 0xc0) {
      out.sofAt = i;
      for (let c = 0; c < body[5]!; c++) out.tq.push(body[8 + 3 * c]!);
    } else if (m === 0xda) {
      for (let c = 0; c < body[0]!; c++) out.tda.push(body[2 + 2 * c]!);
      // One scan and no restart markers: the data runs to the EOI at the end.
      out.scan = Buffer.from(jpeg.subarray(end, jpeg.length - 2));
      out.sos = Buffer.from(jpeg.subarray(i, end));
      out.head = Buffer.from(jpeg.subarray(0, i));
      return out;
    } else if (m !== 0xe0 && m !== 0xfe) {
      throw new Error(`unexpected JPEG marker 0xff${m.toString(16)}`);
    }
    i = end;
  }
}
