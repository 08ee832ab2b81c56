// CCITT fax codecs: T.4 MH and MR, T.6 MMR, pure and synchronous, on 1-bit Bitmaps.

export * from './bitmap.js';
export { BitReader } from './bit-reader.js';
export { CodecError } from './errors.js';
export { encodeMH, decodeMH, createMHDecoder } from './mh.js';
export { encodeMR, decodeMR, createMRDecoder } from './mr.js';
export { encodeMMR, decodeMMR, createMMRDecoder, endsWithEofb } from './mmr.js';
export type { PageStats, StreamDecoder } from './page-decoder.js';
export { transcodePage, type PageCoding, type TranscodeTarget, type TranscodedPage } from './transcode.js';
export { kFactorForYDpi, minScanLineBits } from './t4-tables.js';
export { reverseBits, reverseBitsInto } from './reverse-bits.js';
export type {
  DecodeOptions,
  DecodedPage,
  MHDecodeOptions,
  MHEncodeOptions,
  MMREncodeOptions,
  MREncodeOptions,
  T4DecodeOptions,
} from './types.js';
