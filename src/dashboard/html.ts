// HTML for the dashboard: every interpolated value goes through `html` tagged templates,
// which escape it unless it is already a `Safe` fragment made by `html` itself. So markup is
// XSS-safe by construction: there is no other way to put text into a page.

export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Value = Safe | string | number | boolean | null | undefined | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Safe) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/** Tagged template: literal parts are markup, every `${value}` is escaped (arrays joined). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Safe {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Safe(out);
}

/** A URL for an href/src: only relative paths and http(s) pass; anything else becomes `#`. */
export function safeUrl(url: string): string {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : '#';
  } catch {
    return '#';
  }
}
