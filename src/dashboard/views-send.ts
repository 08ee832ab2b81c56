// The send-a-fax pages: the form (files, recipients, quality, key, cover page, schedule) and
// the preview of the pages exactly as they will be transmitted, with the confirm button.
import type { FaxQuality, KeyMode } from '../store/index.js';
import { html, type Safe } from './html.js';
import { csrfField, when } from './views.js';
import { icon } from './icons.js';
import { thumbs } from './views-faxes.js';
import { MAX_MESSAGE, MAX_NAME, MAX_SUBJECT } from '../api/index.js';

/** What the user typed, shown again when the form comes back with an error. */
export interface SendValues {
  faxNumber: string;
  /** '' = the account's own fax number. */
  callerId: string;
  /** '' = none. */
  templateId: string;
  smartDocumentId: string;
  quality: FaxQuality;
  mode: KeyMode;
  subject: string;
  fromName: string;
  toName: string;
  message: string;
  /** As typed in the datetime-local input (the browser's zone when `tz` came with it, else UTC). */
  sendAt: string;
  /** The browser's offset (local-time.ts), filled by live.js; '' without script. */
  tz: string;
  /** The id of the files kept from the last try (previews.ts drafts); '' when none. */
  draft: string;
}

export const EMPTY_SEND: SendValues = { faxNumber: '', callerId: '', templateId: '', smartDocumentId: '', quality: 'Standard', mode: 'test', subject: '', fromName: '', toName: '', message: '', sendAt: '', tz: '', draft: '' };

/** Files kept from a form that came back with an error. */
export interface KeptFiles {
  id: string;
  names: string[];
}

const QUALITIES: { q: FaxQuality; label: string }[] = [
  { q: 'Low', label: 'Low (204 × 98 dpi, fastest)' },
  { q: 'Standard', label: 'Standard (204 × 196 dpi)' },
  { q: 'HD', label: 'HD (408 × 391 dpi, where the receiver supports it)' },
];

/** What the form offers: the account's fax number first, then its caller IDs; its templates and smart documents. */
export interface SendChoices {
  fromNumbers: string[];
  templates: { id: string; name: string }[];
  smartDocuments: { id: string; name: string }[];
}

function librarySelect(id: string, label: string, items: { id: string; name: string }[], value: string): Safe {
  if (items.length === 0) return html``;
  return html`<label for="${id}">${label}</label>
<select id="${id}" name="${id}"><option value="">None</option>${items.map((t) => html`<option value="${t.id}"${value === t.id ? html` selected` : ''}>${t.name}</option>`)}</select>`;
}

export function sendForm(csrf: string, v: SendValues, maxMb: number, choices: SendChoices, kept: KeptFiles | null = null): Safe {
  const { fromNumbers } = choices;
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<form method="post" action="/dashboard/send/preview" enctype="multipart/form-data" class="send">
${csrfField(csrf)}
<div class="grid-2">
<section class="panel" aria-labelledby="what"><h2 id="what">What to send, and to whom</h2>
<label for="files">Documents</label>
${kept ? html`<input type="hidden" name="draft" value="${kept.id}">
<div class="kept-box" id="kept-hint"><p class="hint">Kept from your last try (choose files below to replace them):</p><ul class="kept">${kept.names.map((n) => html`<li class="kept-file">${n}</li>`)}</ul></div>` : ''}
<input id="files" name="files" type="file" multiple${kept ? '' : html` required`} aria-describedby="files-hint${kept ? ' kept-hint' : ''}" accept=".pdf,.tif,.tiff,.png,.jpg,.jpeg,.gif,.webp,.bmp,.txt,application/pdf,image/*,text/plain">
<p class="hint" id="files-hint">PDF, TIFF, PNG, JPEG, GIF, WebP, BMP or plain text; up to 20 files, ${maxMb} MB together.</p>
<label for="faxNumber">Recipient fax numbers</label>
<input id="faxNumber" name="faxNumber" inputmode="tel" autocomplete="off" required maxlength="400" aria-describedby="number-hint" value="${v.faxNumber}">
<p class="hint" id="number-hint">International format, e.g. +14155550123; up to 15 numbers separated by commas (one fax each).</p>
<label for="callerId">From number (caller ID)</label>
<select id="callerId" name="callerId">${fromNumbers.map((n, i) => html`<option value="${i === 0 ? '' : n}"${(i === 0 ? v.callerId === '' || v.callerId === n : v.callerId === n) ? html` selected` : ''}>${n}${i === 0 ? ' (the account number)' : ''}</option>`)}</select>
${librarySelect('smartDocumentId', 'Smart document (appended after the files)', choices.smartDocuments, v.smartDocumentId)}
<fieldset><legend>Line</legend>
<div class="choice"><input type="radio" id="mode-test" name="mode" value="test"${checked(v.mode === 'test')}><label for="mode-test">Test: the virtual line, free (outcome chosen by the number's last digits)</label></div>
<div class="choice"><input type="radio" id="mode-live" name="mode" value="live"${checked(v.mode === 'live')}><label for="mode-live">Live: dialed for real, charged per page</label></div>
</fieldset>
<fieldset><legend>Quality</legend>
${QUALITIES.map(({ q, label }) => html`<div class="choice"><input type="radio" id="quality-${q}" name="faxQuality" value="${q}"${checked(v.quality === q)}><label for="quality-${q}">${label}</label></div>`)}
</fieldset>
</section>
<section class="panel" aria-labelledby="cover-h"><h2 id="cover-h">Cover page and schedule</h2>
<p class="hint">Optional: any filled field adds a cover page.</p>
${librarySelect('templateId', 'Cover-page template', choices.templates, v.templateId)}
<label for="subject">Subject</label>
<input id="subject" name="subject" maxlength="${MAX_SUBJECT}" value="${v.subject}">
<div class="form-grid"><div><label for="from_name">From (name)</label>
<input id="from_name" name="from_name" maxlength="${MAX_NAME}" autocomplete="name" value="${v.fromName}"></div>
<div><label for="to_name">To (name)</label>
<input id="to_name" name="to_name" maxlength="${MAX_NAME}" value="${v.toName}"></div></div>
<label for="message">Message</label>
<textarea id="message" name="message" rows="5" maxlength="${MAX_MESSAGE}">${v.message}</textarea>
<label for="send_at">Send at</label>
<input id="send_at" name="send_at" type="datetime-local" step="60" value="${v.sendAt}" aria-describedby="send-at-hint">
<input type="hidden" name="tz" value="${v.tz}" data-tz-offset data-for="send_at">
<p class="hint" id="send-at-hint" data-tz-hint="Leave empty to send at once. In your time zone">Leave empty to send at once. In UTC (the page script did not run).</p>
</section>
</div>
<p class="actions"><button type="submit" class="btn primary">${icon('faxes')}<span>Preview pages</span></button> <span class="hint">Nothing is sent before you confirm the preview.</span></p>
</form>`;
}

interface PreviewView {
  id: string;
  numbers: string[];
  fromNumber: string;
  quality: FaxQuality;
  mode: KeyMode;
  sendAtMs: number | null;
  cover: { subject?: string; fromName?: string; toName?: string; message?: string } | null;
  files: { fileName: string; pages: number }[];
  template: string | null;
  smartDocument: string | null;
  shownPages: number;
  totalPages: number;
  expiresAtMs: number;
}

export function previewPage(p: PreviewView, csrf: string): Safe {
  const base = `/dashboard/send/preview/${p.id}`;
  const pages = Array.from({ length: p.shownPages }, (_, i) => i + 1);
  const c = p.cover;
  return html`<section class="panel" aria-labelledby="summary"><h2 id="summary">Summary</h2><dl class="facts">
<dt>To</dt><dd>${p.numbers.join(', ')}</dd>
<dt>From</dt><dd>${p.fromNumber}</dd>
<dt>Line</dt><dd>${p.mode === 'test' ? 'test (virtual line, free)' : 'live (charged)'}</dd>
<dt>Quality</dt><dd>${p.quality}</dd>
<dt>Pages</dt><dd>${p.totalPages}${p.numbers.length > 1 ? ` per recipient, ${p.numbers.length} faxes` : ''}</dd>
<dt>Send</dt><dd class="send-time">${p.sendAtMs === null ? 'at once' : when(p.sendAtMs)}</dd>
${c?.subject ? html`<dt>Subject</dt><dd class="subject">${c.subject}</dd>` : ''}
${c?.fromName ? html`<dt>From name</dt><dd>${c.fromName}</dd>` : ''}
${c?.toName ? html`<dt>To name</dt><dd>${c.toName}</dd>` : ''}
${c?.message ? html`<dt>Message</dt><dd class="message">${c.message}</dd>` : ''}
${p.template ? html`<dt>Cover template</dt><dd>${p.template}</dd>` : ''}
${p.smartDocument ? html`<dt>Smart document</dt><dd>${p.smartDocument}</dd>` : ''}
<dt>Files</dt><dd><ul class="plain">${p.files.map((f) => html`<li><span class="file">${f.fileName}</span> · ${f.pages} ${f.pages === 1 ? 'page' : 'pages'}</li>`)}</ul></dd>
</dl>
</section>
<div class="actions"><form method="post" action="/dashboard/send/confirm" class="inline">${csrfField(csrf)}<input type="hidden" name="preview" value="${p.id}"><button type="submit" class="btn primary">${icon('send')}<span>${p.sendAtMs === null ? 'Send fax' : 'Schedule fax'}</span></button></form>
<a class="btn secondary" href="/dashboard/send">Start over</a></div>
<p class="hint">This preview is kept until ${when(p.expiresAtMs)}. The header line shows the time of transmission${p.numbers.length > 1 ? '; each recipient gets a cover page with their own number' : ''}.</p>
<section class="panel" aria-labelledby="pages"><h2 id="pages">Pages as they will be transmitted</h2>
${thumbs(pages.map((n) => ({ href: `${base}/pages/${n}.png`, src: `${base}/pages/${n}.png`, alt: `Page ${n} of ${p.totalPages}`, caption: `Page ${n}` })), false)}
${p.totalPages > p.shownPages ? html`<p class="hint">The first ${p.shownPages} of ${p.totalPages} pages are shown.</p>` : ''}
</section>`;
}
