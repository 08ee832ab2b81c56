// A small bar chart as inline SVG, drawn on the server (no script, no library): faxes and pages
// per day, two bars a day on one scale. The numbers are also in a visually hidden table beside
// it (views-home.ts), so the chart itself is decorative for assistive technology.
import { html, type Safe } from './html.js';

export interface DayCount {
  /** YYYY-MM-DD (UTC). */
  day: string;
  faxes: number;
  pages: number;
}

const W = 640;
const H = 180;
const PAD = { top: 12, right: 8, bottom: 26, left: 30 };

/** A rounded-up axis maximum (1, 2, 5 × 10^n) and its ticks. */
export function niceMax(max: number): number {
  if (max <= 4) return Math.max(1, Math.ceil(max));
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

export function barChart(days: DayCount[], label: string): Safe {
  const top = niceMax(Math.max(0, ...days.map((d) => Math.max(d.faxes, d.pages))));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const bar = Math.max(2, Math.min(14, slot * 0.32));
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const ticks = [0, top / 2, top];
  const r = (n: number) => Math.round(n * 10) / 10;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-hidden="true" focusable="false" data-label="${label}">
${ticks.map((t) => html`<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${r(y(t))}" y2="${r(y(t))}"/><text x="${PAD.left - 6}" y="${r(y(t) + 4)}" text-anchor="end">${Number.isInteger(t) ? t : t.toFixed(1)}</text>`)}
${days.map((d, i) => {
    const cx = PAD.left + slot * i + slot / 2;
    const showLabel = days.length <= 14 || i % 2 === days.length % 2;
    return html`<g><rect class="bar-f" x="${r(cx - bar - 1)}" y="${r(y(d.faxes))}" width="${r(bar)}" height="${r(Math.max(0, y(0) - y(d.faxes)))}" rx="2"><title>${d.day}: ${d.faxes} faxes</title></rect><rect class="bar-p" x="${r(cx + 1)}" y="${r(y(d.pages))}" width="${r(bar)}" height="${r(Math.max(0, y(0) - y(d.pages)))}" rx="2"><title>${d.day}: ${d.pages} pages</title></rect>${showLabel ? html`<text x="${r(cx)}" y="${H - 8}" text-anchor="middle">${d.day.slice(8)}</text>` : ''}</g>`;
  })}
</svg>`;
}
