// TIFF 6.0 constants used by the class F writer and the reader: tag numbers (TIFF 6.0
// section 8 and Appendix A; class F tags from the TIFF Class F specification, 1990) and
// field types.

export const Tag = {
  NewSubfileType: 254,
  SubfileType: 255,
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  PhotometricInterpretation: 262,
  FillOrder: 266,
  StripOffsets: 273,
  Orientation: 274,
  SamplesPerPixel: 277,
  RowsPerStrip: 278,
  StripByteCounts: 279,
  XResolution: 282,
  YResolution: 283,
  PlanarConfiguration: 284,
  T4Options: 292,
  T6Options: 293,
  ResolutionUnit: 296,
  PageNumber: 297,
  Software: 305,
  TileWidth: 322,
  TileLength: 323,
  TileOffsets: 324,
  TileByteCounts: 325,
  ExtraSamples: 338,
  JPEGProc: 512,
  JPEGInterchangeFormat: 513,
  JPEGInterchangeFormatLength: 514,
  JPEGRestartInterval: 515,
  JPEGQTables: 519,
  JPEGDCTables: 520,
  JPEGACTables: 521,
  YCbCrSubSampling: 530,
  ReferenceBlackWhite: 532,
  BadFaxLines: 326,
  CleanFaxData: 327,
  ConsecutiveBadFaxLines: 328,
} as const;

export const FieldType = {
  BYTE: 1,
  ASCII: 2,
  SHORT: 3,
  LONG: 4,
  RATIONAL: 5,
  SBYTE: 6,
  UNDEFINED: 7,
  SSHORT: 8,
  SLONG: 9,
  SRATIONAL: 10,
  FLOAT: 11,
  DOUBLE: 12,
  IFD: 13,
} as const;

/** Bytes per value of each field type (index = type; 0 = unknown type). */
export const FIELD_SIZE: readonly number[] = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

export const Compression = { NONE: 1, CCITT_RLE: 2, CCITT_T4: 3, CCITT_T6: 4, OJPEG: 6 } as const;

/** T4Options bits (TIFF 6.0 section 11). */
export const T4_2D = 1;
export const T4_FILL_BITS = 4;

/** NewSubfileType bits. */
export const SUBFILE_REDUCED = 1;
export const SUBFILE_PAGE = 2;

/** Image widths of TIFF class F (T.4 A4, B4, A3 at 8 pels/mm, and A4 at 16 pels/mm). */
export const CLASS_F_WIDTHS: readonly number[] = [1728, 2048, 2432, 3456];
