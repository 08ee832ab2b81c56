// The templates page: the account's cover-page templates and smart documents (docs/api.md decision
// 15) with previews, the upload form and delete buttons (for whom permissions.ts lets manage them).
import { LETTERHEAD_TOP_MM } from '../documents/index.js';
import type { TemplateKind, TemplateRecord } from '../store/index.js';
import { html, type Safe } from './html.js';
import { csrfField, postButton, when } from './views.js';

interface TemplatesView {
  templates: TemplateRecord[];
  /** The user may upload and delete (permissions.ts); otherwise they see the list and previews. */
  manage: boolean;
  maxMb: number;
  /** What the upload form showed when it was refused (the file must be chosen again). */
  draft?: { kind: TemplateKind; name: string };
}

const KIND_LABEL: Record<TemplateKind, string> = { template: 'Cover page template', smartDocument: 'Smart document' };
const FIELDS = ['subject', 'from_name', 'to_name', 'message', 'date', 'pages'];

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

export function templatesPage(v: TemplatesView, csrf: string): Safe {
  const draft = v.draft ?? { kind: 'template' as const, name: '' };
  return html`<p class="lead">A <strong>cover page template</strong> is a UTF-8 text file; ${FIELDS.map((f, i) => html`${i ? ', ' : ''}<code>{{${f}}}</code>`)} are filled in when a fax is sent
(<code>{{pages}}</code> counts the cover page; a line starting with <code># </code> is a heading). A one-page PDF, TIFF or image as a template is a
<strong>letterhead</strong>: the cover's fields are drawn over it from ${LETTERHEAD_TOP_MM} mm below the top edge. A <strong>smart document</strong> (PDF, TIFF, image or text) is sent after the attachments.
Use them with <code>templateId</code> and <code>smartDocumentId</code> in <code>fax-send</code>.</p>
${v.templates.length === 0
    ? html`<div class="panel empty"><p>No templates or smart documents yet.</p></div>`
    : html`<ul class="thumbs templates">${v.templates.map((t) => html`<li class="template">
<img src="/dashboard/templates/${t.id}/preview.png" width="300" alt="Preview of ${t.name}" loading="lazy">
<p><strong class="template-name">${t.name}</strong><br>${KIND_LABEL[t.kind]} · <code>${t.id}</code><br>
<small>${t.fileName} · ${t.format.toUpperCase()} · ${t.pageCount} ${t.pageCount === 1 ? 'page' : 'pages'} · ${size(t.byteLength)} · ${when(t.createdAtMs)}</small></p>
${v.manage ? postButton(`/dashboard/templates/${t.id}/delete`, csrf, `Delete ${t.name}`, {}, 'danger small', 'trash') : ''}</li>`)}</ul>`}
${v.manage
    ? html`<section class="panel" aria-labelledby="add-template"><h2 id="add-template">Upload</h2>
<form method="post" action="/dashboard/templates" enctype="multipart/form-data" class="form">${csrfField(csrf)}
<fieldset><legend>Kind</legend>
${(['template', 'smartDocument'] as const).map((k) => html`<div class="choice"><input type="radio" id="kind-${k}" name="kind" value="${k}"${draft.kind === k ? html` checked` : ''}><label for="kind-${k}">${KIND_LABEL[k]}</label></div>`)}
</fieldset>
<label for="template-name">Name</label>
<input id="template-name" name="name" autocomplete="off" maxlength="100" value="${draft.name}">
<label for="template-file">File</label>
<input id="template-file" name="file" type="file" required aria-describedby="template-file-hint" accept=".txt,.pdf,.tif,.tiff,.png,.jpg,.jpeg,.gif,.webp,.bmp,text/plain,application/pdf,image/*">
<p class="hint" id="template-file-hint">A template: plain text, or a one-page PDF, TIFF or image (letterhead). A smart document: PDF, TIFF, PNG, JPEG, GIF, WebP, BMP or text; up to ${v.maxMb} MB.</p>
<p class="actions"><button type="submit" class="btn primary">Upload</button></p></form></section>`
    : ''}`;
}
