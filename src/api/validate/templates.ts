// Request validation for customer/template-create and the template id parameters
// (docs/api.md decision 15). Pure functions; no fastify here.
import { Type } from 'typebox';
import { FaxError } from '../../shared/errors.js';
import { TEMPLATE_KINDS, type TemplateKind } from '../../store/index.js';
import { absent, field, request } from './schema.js';
import { decodeBase64, MAX_FILE_NAME } from './send.js';
import { widthField } from './requests.js';

const MAX_TEMPLATE_NAME = 100;

interface TemplateCreateRequest {
  kind: TemplateKind;
  name: string;
  fileName: string;
  data: Buffer;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const invalid = (message: string, field: string) => new FaxError('INVALID_PARAMETER', message, { field });

function parseTemplateKind(v: unknown, field = 'kind'): TemplateKind {
  if (typeof v === 'string' && (TEMPLATE_KINDS as readonly string[]).includes(v)) return v as TemplateKind;
  throw invalid(`${field} must be "template" (a cover page) or "smartDocument" (appended after the attachments)`, field);
}

const KIND = field(Type.Enum(TEMPLATE_KINDS), (v, f) => parseTemplateKind(v, f));
const FILE_NAME = field(Type.Optional(Type.String({ maxLength: MAX_FILE_NAME })), (v, f, _ctx, earlier) =>
  cleanName(v, f, MAX_FILE_NAME, true) ?? (earlier.kind === 'template' ? 'template.txt' : 'document'));
const NAME = field(Type.Optional(Type.String({ maxLength: MAX_TEMPLATE_NAME, description: 'Default: the file name' })), (v, f) => cleanName(v, f, MAX_TEMPLATE_NAME, false));

/** The template-create body, in the order its fields are checked. */
export const TEMPLATE_CREATE = request({
  kind: KIND,
  fileData: field(Type.String({ contentEncoding: 'base64' }), (v, f) => {
    if (absent(v)) throw invalid('fileData is required: the file, base64-encoded', f);
    return decodeBase64(v, f, f);
  }),
  fileName: FILE_NAME,
  name: NAME,
});

/** kind, name and fileName as the dashboard's upload gives them beside the file: the same fields. */
const TEMPLATE_UPLOAD = request({ kind: KIND, fileName: FILE_NAME, name: NAME });

/** kind, name and fileName of `p` with the file's bytes (the dashboard's upload gives them as a file). */
export function templateUpload(p: Record<string, unknown>, data: Buffer): TemplateCreateRequest {
  return templateRequest({ ...TEMPLATE_UPLOAD.parse(p), fileData: data });
}

/** The request from the parsed fields: the name defaults to the file name, cut to MAX_TEMPLATE_NAME characters. */
export function templateRequest(r: ReturnType<typeof TEMPLATE_CREATE.parse>): TemplateCreateRequest {
  const name = [...(r.name ?? r.fileName)].slice(0, MAX_TEMPLATE_NAME).join('');
  return { kind: r.kind, name, fileName: r.fileName, data: r.fileData };
}

/** A template or smart document id as given (`tpl_...`, `sdoc_...`); any other text is simply not found. */
function parseTemplateId(v: unknown, field = 'id'): string {
  if (typeof v !== 'string' || v.trim() === '') throw invalid(`${field} is required: the id of a template or smart document`, field);
  const s = v.trim();
  if (s.length > 100 || /[\u0000-\u001f\u007f]/.test(s)) throw invalid(`${field} is not a template or smart document id`, field);
  return s;
}

/** Trimmed, control and bidi-override characters removed; `path`: keep the last path component only. */
function cleanName(v: unknown, field: string, max: number, path: boolean): string | null {
  if (absent(v)) return null;
  if (typeof v !== 'string') throw invalid(`${field} must be a string`, field);
  let s = path ? (v.split(/[/\\]/).pop() ?? '') : v;
  s = s.replace(CONTROL, '').trim();
  if ([...s].length > max) throw invalid(`${field} is longer than ${max} characters`, field);
  return s === '' || (path && (s === '.' || s === '..')) ? null : s;
}

export const TEMPLATE_LIST_QUERY = request({
  kind: field(Type.Optional(Type.Enum(TEMPLATE_KINDS)), (v, f) => (v === undefined || v === '' ? undefined : parseTemplateKind(v, f))),
});

const templateIdField = () => field(Type.String({ description: 'tpl_… (template) or sdoc_… (smart document)' }), (v, f) => parseTemplateId(v, f));

export const TEMPLATE_ID_REQUEST = request({ id: templateIdField() });

export const TEMPLATE_PREVIEW_QUERY = request({ id: templateIdField(), width: widthField(1728) });
