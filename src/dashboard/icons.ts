// The dashboard's icons: inline SVG (no requests, CSP-safe, follow the text colour), decorative
// (aria-hidden): every icon stands beside words that say the same. Paths on a 24-unit grid.
import { html, Safe } from './html.js';

const PATHS = {
  home: 'M3 11.5 12 4l9 7.5M5.5 9.5V20h13V9.5M10 20v-5h4v5',
  faxes: 'M6 9V3h9l3 3v3M6 17H4a1 1 0 0 1-1-1v-6a1 1 0 0 1 1-1h16a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1h-2M7 14h10v7H7zM17 12h.01',
  send: 'M4 12 20 4l-5 16-3-7-8-1zM12 13l8-9',
  templates: 'M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h6',
  settings: 'M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6zM19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-2.9 1.2V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-2.9-1.2l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1A1.7 1.7 0 0 0 3.1 14H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.2-2.9l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1A1.7 1.7 0 0 0 10 3.1V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 2.9 1.2l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0 1.2 2.9H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z',
  webhooks: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  users: 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21v-1a6 6 0 0 1 12 0v1M16 3.5a4 4 0 0 1 0 7.5M22 21v-1a6 6 0 0 0-4-5.6',
  api: 'M8 7l-5 5 5 5M16 7l5 5-5 5M14 4l-4 16',
  search: 'M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM21 21l-5-5',
  out: 'M15 4h4a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1h-4M10 16l4-4-4-4M14 12H3',
  ok: 'M5 12.5 10 17l9-10',
  bad: 'M6 6l12 12M18 6 6 18',
  muted: 'M5 12h14',
  busy: 'M12 3v3M12 18v3M3 12h3M18 12h3M5.6 5.6l2.1 2.1M16.3 16.3l2.1 2.1M5.6 18.4l2.1-2.1M16.3 7.7l2.1-2.1',
  wait: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2',
  inbound: 'M20 4 8 16M8 8v8h8',
  outbound: 'M4 20 16 8M8 8h8v8',
  download: 'M12 4v11M7 10l5 5 5-5M5 20h14',
  trash: 'M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3',
  refresh: 'M20 11a8 8 0 0 0-14.3-4.9L4 8M4 4v4h4M4 13a8 8 0 0 0 14.3 4.9L20 16M20 20v-4h-4',
  plus: 'M12 5v14M5 12h14',
} as const;

export type IconName = keyof typeof PATHS;

/** An icon beside words (hidden from assistive technology). */
export function icon(name: IconName, cls = 'icon'): Safe {
  return html`<svg class="${cls}" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path d="${PATHS[name]}"/></svg>`;
}

/** The logo: a fax page with a speed mark, in the brand colours; also the favicon. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f3d3e"/><path d="M10 7h9l4 4v14H10z" fill="#fff"/><path d="M19 7v4h4" fill="#c9e6e0"/><path d="M13 15h7M13 18.5h7M13 22h4.5" stroke="#0f3d3e" stroke-width="1.6" stroke-linecap="round"/><path d="M4.5 13h3.5M3 17h5M4.5 21h3.5" stroke="#ffb454" stroke-width="1.8" stroke-linecap="round"/></svg>`;

export const logo = (): Safe => new Safe(LOGO_SVG.replace('<svg ', '<svg class="logo" width="32" height="32" aria-hidden="true" focusable="false" '));
