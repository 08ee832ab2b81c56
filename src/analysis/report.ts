// The decode report: a capture's call as timestamped lines (`mm:ss.mmm  caller→answerer  DCS
// V.17 14400, ECM, MMR, R8×3.85, A4`), as one JSON object, and its pages as a TIFF class F file.
import { writeTiffF, type TiffCompression } from '../documents/index.js';
import type { AnalyzedPage, CallAnalysis, ReportEntry } from './call-analysis.js';
import { modemText } from './describe.js';
import type { Side } from './line-events.js';

/** What the report needs to know of the capture besides the call. */
interface ReportInput {
  /** `stereo WAV, µ-law, 62.3 s` */
  description: string;
  call: CallAnalysis;
  warnings: readonly string[];
}

/** mm:ss.mmm (minutes keep counting past 59). */
export function formatTime(ms: number): string {
  const t = Math.max(0, Math.round(ms));
  const m = Math.floor(t / 60_000);
  const s = Math.floor((t % 60_000) / 1000);
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(t % 1000).padStart(3, '0')}`;
}

const ARROW: Record<Side, string> = { caller: 'caller→answerer', answerer: 'answerer→caller' };
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The label and the words of one entry. */
export function describeEntry(e: ReportEntry): { label: string; text: string } {
  switch (e.kind) {
    case 'tone':
      return { label: e.tone, text: e.durationMs === undefined ? '' : seconds(e.durationMs) };
    case 'frame': {
      const hs = e.modem === 'v21' ? '' : ` (at ${modemText(e.modem)})`;
      return { label: e.name, text: e.crcOk ? `${e.detail}${hs}` : `[bad FCS] ${e.hex}` };
    }
    case 'tcf': {
      const modem = `${modemText(e.modem)}${e.training ? ` ${e.training} training` : ''}`;
      if (!e.trained) return { label: 'TCF', text: `${modem}: training failed` };
      const m = e.measured;
      if (!m) return { label: 'TCF', text: `${modem}: no TCF data (T.38 local TCF)` };
      const errors = `${m.errors} error${m.errors === 1 ? '' : 's'}`;
      return { label: 'TCF', text: `${modem}: ${seconds(m.durationMs)}, longest zero run ${seconds(m.longestZeroRunMs)}, ${errors} → ${m.ok ? 'OK' : 'FAIL'}` };
    }
    case 'training-failed':
      return { label: 'train', text: `${modemText(e.modem)}: training failed` };
    case 'page':
      return { label: `page ${e.page.index}:`, text: pageText(e.page) };
    case 'note':
      return { label: 'note', text: e.text };
  }
}

function pageText(p: AnalyzedPage): string {
  const how = [modemText(p.modem), ...(p.ecm ? ['ECM'] : []), p.coding.toUpperCase(), ...(p.frames !== undefined ? [`${p.frames} frames`] : [])].join(', ');
  const size = p.bitmap ? `${p.width}×${p.height}, ${p.badRows} bad row${p.badRows === 1 ? '' : 's'}` : 'not decoded';
  return `${size}${p.error ? ` (${p.error})` : ''} [${how}]`;
}

export function reportLines(r: ReportInput): string[] {
  const lines = [`capture: ${r.description}`];
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  for (const e of r.call.entries) {
    const { label, text } = describeEntry(e);
    const dir = 'from' in e && e.from ? ARROW[e.from] : '';
    lines.push(`${formatTime(e.atMs)}  ${dir.padEnd(15)}  ${label}${text ? `${label.endsWith(':') ? ' ' : '  '}${text}` : ''}`.trimEnd());
  }
  lines.push(...summaryLines(r.call));
  return lines;
}

function summaryLines(c: CallAnalysis): string[] {
  const out: string[] = [];
  if (c.frames.ok + c.frames.bad === 0) return ['no T.30 frames found: no fax call in this capture?'];
  out.push(c.mode ? `mode: ${c.mode.text}${c.mode.confirmed ? '' : ' (no CFR seen)'}` : 'mode: no DCS seen');
  const ids = [c.idents.caller !== undefined && `caller ${JSON.stringify(c.idents.caller)}`, c.idents.answerer !== undefined && `answerer ${JSON.stringify(c.idents.answerer)}`].filter(Boolean);
  if (ids.length) out.push(`idents: ${ids.join(', ')}`);
  const clean = c.pages.filter((p) => p.bitmap && p.badRows === 0 && !p.error).length;
  out.push(`pages: ${c.pages.length}${c.pages.length ? ` (${clean} without errors)` : ''}`);
  out.push(`frames: ${c.frames.ok + c.frames.bad} (${c.frames.bad} with a bad FCS)`);
  return out;
}

/** The report as plain data (no bitmaps): what `--json` prints. */
export function reportJson(r: ReportInput): Record<string, unknown> {
  const c = r.call;
  const dcs = c.mode?.dcs;
  return {
    capture: r.description,
    warnings: r.warnings,
    mode: c.mode ? { text: c.mode.text, confirmed: c.mode.confirmed, ...c.mode.dcs } : null,
    bitRate: dcs?.modem.bitRate ?? null,
    ecm: dcs?.ecm ?? null,
    compression: dcs ? dcs.coding.toUpperCase() : null,
    resolution: c.pages[0] ? `${c.pages[0].xDpi}x${c.pages[0].yDpi}` : null,
    remoteIdent: c.idents.answerer ?? null,
    idents: c.idents,
    frames: c.frames,
    pages: c.pages.filter((p) => p.bitmap).length,
    pagesTotal: c.pages.length,
    pageList: c.pages.map(({ bitmap: _b, ...p }) => p),
    events: c.entries.map((e) => {
      const { label, text } = describeEntry(e);
      const base = { atMs: Math.round(e.atMs), time: formatTime(e.atMs), ...('from' in e && e.from ? { from: e.from } : {}), label, text };
      if (e.kind === 'page') {
        const { bitmap: _b, ...page } = e.page;
        return { ...base, kind: e.kind, page };
      }
      const { atMs: _a, ...rest } = e;
      return { ...base, ...rest };
    }),
  };
}

/** The decoded pages as one TIFF class F file in the call's coding; undefined when there are none. */
export function pagesTiff(pages: readonly AnalyzedPage[], compression?: TiffCompression): Buffer | undefined {
  const decoded = pages.filter((p) => p.bitmap);
  if (decoded.length === 0) return undefined;
  return writeTiffF(
    decoded.map((p) => ({ bitmap: p.bitmap!, xDpi: p.xDpi, yDpi: p.yDpi })),
    { compression: compression ?? decoded[0]!.coding, strictClassF: false, software: 'faxstack decode' },
  );
}
