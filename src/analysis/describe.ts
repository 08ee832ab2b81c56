// Words for what T.30 frames say: modems, modes (DCS), capabilities (DIS/DTC), identities and
// the ECM frames (T.30 Table 2, 5.3.6; T.4 Annex A), as the decode report prints them.
import type { Dcs, Dis, ModemSpec, Resolution } from '../t30/index.js';

const MODULATION: Record<ModemSpec['modulation'], string> = { v17: 'V.17', v29: 'V.29', v27ter: 'V.27ter' };

export function modemText(m: ModemSpec): string {
  return `${MODULATION[m.modulation]} ${m.bitRate}`;
}

const RESOLUTION: Record<Resolution, string> = {
  R8_STANDARD: 'R8×3.85',
  R8_FINE: 'R8×7.7',
  R8_SUPERFINE: 'R8×15.4',
  R16_SUPERFINE: 'R16×15.4',
  '200_100': '200×100',
  '200_200': '200×200',
  '200_400': '200×400',
  '300_300': '300×300',
  '400_400': '400×400',
};

function resolutionText(r: Resolution): string {
  return RESOLUTION[r];
}

/** `V.17 14400, ECM, MMR, R8×3.85, A4` */
export function modeText(d: Dcs): string {
  const parts = [modemText(d.modem)];
  if (d.ecm) parts.push(d.ecmFrameSize === 64 ? 'ECM (64-octet frames)' : 'ECM');
  parts.push(d.coding.toUpperCase(), resolutionText(d.resolution), d.width.toUpperCase());
  if (d.length !== 'a4') parts.push(d.length === 'b4' ? 'B4 length' : 'unlimited length');
  if (!d.ecm && d.scanLineMs) parts.push(`${d.scanLineMs} ms/line`);
  return parts.join(', ');
}

/** `V.17 V.29 V.27ter, ECM, MH MR MMR, R8×3.85 R8×7.7 R8×15.4, A4 B4 A3` */
export function capabilitiesText(d: Dis): string {
  const modems = [d.modems.v17 && 'V.17', d.modems.v29 && 'V.29', d.modems.v27ter && (d.modems.v27terFallbackOnly ? 'V.27ter 2400' : 'V.27ter')].filter(Boolean);
  const codings = ['MH', d.twoD && 'MR', d.t6 && 'MMR'].filter(Boolean);
  const parts = [modems.join(' ') || 'no modems'];
  if (d.ecm) parts.push('ECM');
  parts.push(codings.join(' '), d.resolutions.map(resolutionText).join(' '), d.widths.map((w) => w.toUpperCase()).join(' '));
  if (d.t38) parts.push('T.38');
  return parts.join(', ');
}

export function hex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += (i ? ' ' : '') + bytes[i]!.toString(16).padStart(2, '0');
  return s;
}

/** Frames a PPR map asks for again (bits set). */
export function pprCount(map: Uint8Array): number {
  let n = 0;
  for (const b of map) for (let v = b; v; v &= v - 1) n++;
  return n;
}
