// The short digests the golden tests compare with what an earlier tree produced
// (native-free-dsp/tx-golden.test.ts, rx-golden.test.ts, src/ber/prbs-golden.test.ts,
// src/line-model/line-model-golden.test.ts): FNV-1a, printed as "hash/count".

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the values' four low octets each; "hash/count". */
export function valuesHash(vals: ArrayLike<number>): string {
  let h = FNV_OFFSET;
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    for (let k = 0; k < 32; k += 8) h = Math.imul(h ^ ((v >>> k) & 0xff), FNV_PRIME);
  }
  return `${(h >>> 0).toString(16)}/${vals.length}`;
}

/** FNV-1a over the lines' UTF-16 code units; "hash/count of lines". */
export function linesHash(lines: string[]): string {
  let h = FNV_OFFSET;
  for (const l of lines) for (let i = 0; i < l.length; i++) h = Math.imul(h ^ l.charCodeAt(i), FNV_PRIME);
  return `${(h >>> 0).toString(16)}/${lines.length}`;
}
