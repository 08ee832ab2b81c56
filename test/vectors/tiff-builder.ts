// Builds TIFF files field by field for reader tests: either byte order, any tags, raw
// strips, and hooks to damage the structure (IFD chains, offsets).

export interface BuildEntry {
  tag: number;
  /** TIFF field type: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL. */
  type: number;
  values: number[] | string;
  /** Write this count instead of the real one (hostile files). */
  count?: number;
  /** Write this value offset instead of the real one (hostile files). */
  offset?: number;
}

export interface BuildIfd {
  entries: BuildEntry[];
  /** Strips: StripOffsets and StripByteCounts (LONG) are added for them. */
  strips?: Uint8Array[];
}

export interface BuildOptions {
  bigEndian?: boolean;
  /** Override the next-IFD pointer of IFD i (return undefined to keep it). */
  next?: (i: number, offsets: number[]) => number | undefined;
  /** Override the first-IFD pointer in the header. */
  firstIfd?: number;
}


export function buildTiff(ifds: BuildIfd[], opts: BuildOptions = {}): Uint8Array {
  const le = !opts.bigEndian;
  const parts: number[] = [];
  const u8 = (v: number) => parts.push(v & 0xff);
  const u16 = (v: number) => (le ? [v & 0xff, (v >>> 8) & 0xff] : [(v >>> 8) & 0xff, v & 0xff]).forEach((b) => parts.push(b));
  const u32 = (v: number) =>
    (le ? [v, v >>> 8, v >>> 16, v >>> 24] : [v >>> 24, v >>> 16, v >>> 8, v]).forEach((b) => parts.push(b & 0xff));
  const align = () => {
    if (parts.length & 1) parts.push(0);
  };
  const patch32 = (at: number, v: number) => {
    const bytes = le ? [v, v >>> 8, v >>> 16, v >>> 24] : [v >>> 24, v >>> 16, v >>> 8, v];
    bytes.forEach((b, i) => (parts[at + i] = b & 0xff));
  };
  const encodeValues = (e: BuildEntry): number[] => {
    const start = parts.length;
    if (typeof e.values === 'string') {
      for (const c of `${e.values}\0`) u8(c.charCodeAt(0));
    } else {
      for (const v of e.values) {
        if (e.type === 3) u16(v);
        else if (e.type === 4 || e.type === 5) u32(v);
        else u8(v);
      }
    }
    return parts.splice(start);
  };

  (le ? [0x49, 0x49] : [0x4d, 0x4d]).forEach(u8);
  u16(42);
  u32(0);
  const ifdOffsets: number[] = [];
  const nextPtrs: number[] = [];
  for (const ifd of ifds) {
    const entries = [...ifd.entries];
    if (ifd.strips) {
      const offsets: number[] = [];
      for (const s of ifd.strips) {
        align();
        offsets.push(parts.length);
        s.forEach(u8);
      }
      entries.push({ tag: 273, type: 4, values: offsets }, { tag: 279, type: 4, values: ifd.strips.map((s) => s.length) });
    }
    entries.sort((a, b) => a.tag - b.tag);
    const valueOffsets = entries.map((e) => {
      const bytes = encodeValues(e);
      if (bytes.length <= 4) return -1;
      align();
      const at = parts.length;
      bytes.forEach(u8);
      return at;
    });
    align();
    ifdOffsets.push(parts.length);
    u16(entries.length);
    entries.forEach((e, i) => {
      const bytes = encodeValues(e);
      const count = e.count ?? (typeof e.values === 'string' ? bytes.length : e.type === 5 ? e.values.length / 2 : e.values.length);
      u16(e.tag);
      u16(e.type);
      u32(count);
      if (e.offset !== undefined) u32(e.offset);
      else if (valueOffsets[i]! >= 0) u32(valueOffsets[i]!);
      else for (let k = 0; k < 4; k++) u8(bytes[k] ?? 0);
    });
    nextPtrs.push(parts.length);
    u32(0);
  }
  patch32(4, opts.firstIfd ?? ifdOffsets[0] ?? 0);
  for (let i = 0; i + 1 < ifdOffsets.length; i++) patch32(nextPtrs[i]!, ifdOffsets[i + 1]!);
  if (opts.next) {
    ifdOffsets.forEach((_, i) => {
      const v = opts.next!(i, ifdOffsets);
      if (v !== undefined) patch32(nextPtrs[i]!, v);
    });
  }
  return Uint8Array.from(parts);
}

/** The class F tags of a bilevel page (without strips), for building test files. */
export function bilevelEntries(
  width: number,
  height: number,
  extra: { compression?: number; photometric?: number; fillOrder?: number; rowsPerStrip?: number; t4Options?: number } = {},
): BuildEntry[] {
  const entries: BuildEntry[] = [
    { tag: 256, type: 4, values: [width] },
    { tag: 257, type: 4, values: [height] },
    { tag: 258, type: 3, values: [1] },
    { tag: 259, type: 3, values: [extra.compression ?? 1] },
    { tag: 262, type: 3, values: [extra.photometric ?? 0] },
    { tag: 266, type: 3, values: [extra.fillOrder ?? 1] },
    { tag: 277, type: 3, values: [1] },
    { tag: 278, type: 4, values: [extra.rowsPerStrip ?? height] },
    { tag: 282, type: 5, values: [204, 1] },
    { tag: 283, type: 5, values: [196, 1] },
    { tag: 296, type: 3, values: [2] },
  ];
  if (extra.t4Options !== undefined) entries.push({ tag: 292, type: 4, values: [extra.t4Options] });
  return entries;
}
