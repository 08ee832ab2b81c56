// Dashboard: the API reference, rendered from the same OpenAPI document /v1/openapi.json serves
// (openApiDocument): every endpoint with its parameters, body fields and responses, and the
// error-code table the document's description carries. Rendered once, escaped like every page.
import { openApiDocument } from '../../api/index.js';
import { html, type Safe } from '../html.js';
import type { Dashboard } from '../kit.js';

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  items?: Schema;
  $ref?: string;
  format?: string;
  description?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  default?: unknown;
  maxItems?: number;
}
interface Parameter { name: string; in: string; required?: boolean; schema?: Schema; description?: string }
interface Operation {
  summary?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; $ref?: string }>;
}
interface Document {
  info: { title: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** A schema in a few words: `string`, `integer`, `one of Low, Standard, HD`, `list of Attachment`. */
function typeText(s: Schema | undefined): string {
  if (!s) return '';
  if (s.$ref) return s.$ref.split('/').pop() ?? '';
  if (s.enum) return `one of ${s.enum.map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
  if (s.const !== undefined) return `"${String(s.const)}"`;
  if (s.oneOf) return s.oneOf.map(typeText).join(' or ');
  if (s.type === 'array') return `list of ${typeText(s.items)}${s.maxItems ? ` (at most ${s.maxItems})` : ''}`;
  const t = Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
  return s.format ? `${t} (${s.format})` : t;
}

/** Markdown-ish text: `code` spans become <code>, the rest is escaped text. */
function prose(text: string): Safe {
  return html`${text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

function fieldsTable(caption: string, rows: { name: string; where?: string; type: string; required: boolean; note: string }[]): Safe {
  if (rows.length === 0) return html``;
  const hasWhere = rows.some((r) => r.where);
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table><caption>${caption}</caption><thead><tr><th scope="col">Name</th>${hasWhere ? html`<th scope="col">In</th>` : ''}<th scope="col">Type</th><th scope="col">Required</th><th scope="col">Notes</th></tr></thead><tbody>
${rows.map((r) => html`<tr><td><code>${r.name}</code></td>${hasWhere ? html`<td>${r.where ?? ''}</td>` : ''}<td>${r.type}</td><td>${r.required ? 'yes' : 'no'}</td><td>${prose(r.note)}</td></tr>`)}
</tbody></table></div>`;
}

function apiReference(doc: Document): Safe {
  const base = doc.servers[0]?.url ?? '';
  const lines = doc.info.description.split('\n');
  const intro = lines.filter((l) => l.trim() !== '' && !l.startsWith('|'));
  const codes = lines.map((l) => /^\| (-?\d+) \| (\w+) \| ([^|]+) \|( faxstack addition)?$/.exec(l)).filter((m) => m !== null);
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
  const slug = (method: string, path: string) => `${method}-${path}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return html`${intro.map((l) => html`<p>${prose(l)}</p>`)}
<p>The machine-readable document: <a href="${base}/openapi.json">${base}/openapi.json</a> (OpenAPI 3.1).</p>
<nav aria-labelledby="endpoints"><h2 id="endpoints">Endpoints</h2><ul class="plain">
${ops.map(({ path, method, op }) => html`<li><a href="#${slug(method, path)}"><code>${method} ${base}${path}</code></a> — ${op.summary ?? ''}</li>`)}
</ul></nav>
${ops.map(({ path, method, op }) => {
  const body = Object.entries(op.requestBody?.content ?? {}).find(([, c]) => c.schema?.properties)?.[1]?.schema;
  const required = new Set(body?.required ?? []);
  return html`<section class="endpoint" aria-labelledby="${slug(method, path)}"><h2 id="${slug(method, path)}"><code>${method} ${base}${path}</code></h2>
<p>${prose(op.summary ?? '')}${Array.isArray(op.security) && op.security.length === 0 ? ' No key needed.' : ''}</p>
${fieldsTable('Parameters', (op.parameters ?? []).map((p) => ({ name: p.name, where: p.in, type: typeText(p.schema), required: p.required === true, note: p.description ?? '' })))}
${body ? fieldsTable(`Body (${Object.keys(op.requestBody?.content ?? {}).join(' or ')})`, Object.entries(body.properties ?? {}).map(([name, s]) => ({
    name, type: typeText(s), required: required.has(name), note: [s.description ?? '', s.default !== undefined ? `default ${String(s.default)}` : ''].filter(Boolean).join('; '),
  }))) : ''}
<p class="hint">Responses: ${Object.entries(op.responses ?? {}).map(([code, r], i) => html`${i ? ', ' : ''}${code}${r.description ? ` (${r.description})` : ''}`)}</p>
</section>`;
})}
<section aria-labelledby="schemas"><h2 id="schemas">Objects</h2>
${Object.entries(doc.components.schemas).map(([name, s]) => fieldsTable(name, Object.entries(s.properties ?? {}).map(([field, fs]) => ({ name: field, type: typeText(fs), required: (s.required ?? []).includes(field), note: fs.description ?? '' }))))}
</section>
<section aria-labelledby="codes"><h2 id="codes">Error codes</h2>
<p>Errors answer with <code>{status, message, data: {code, field?}}</code>; transmission codes appear in a fax's <code>code</code>.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Codes"><table><caption>Codes</caption><thead><tr><th scope="col" class="num">Code</th><th scope="col">Name</th><th scope="col">Where</th><th scope="col">Origin</th></tr></thead><tbody>
${codes.map((m) => html`<tr><td class="num"><code>${m[1]!}</code></td><td><code>${m[2]!}</code></td><td>${m[3]!.trim()}</td><td>${m[4] ? 'faxstack addition' : 'SPEC-API'}</td></tr>`)}
</tbody></table></div></section>`;
}

export function registerApiReference(d: Dashboard): void {
  // The document does not change while the process runs: render it once.
  const body = apiReference(openApiDocument('') as Document);
  d.route('GET', '/dashboard/api', async (c) => d.page(c, 200, 'API reference', 'api', body));
}
