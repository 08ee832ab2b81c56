// Request validation for customer/template-create and the template id parameters
// (docs/api.md decision 15). Pure functions; no fastify here.
import { FaxError } from '../../shared/errors.js';
import { TEMPLATE_KINDS, type TemplateKind } from '../../store/index.js';
import { decodeBase64, MAX_FILE_NAME } from './send.js';

export const MAX_TEMPLATE_NAME = 100;

export interface TemplateCreateRequest {
  kind: TemplateKind;
  name: string;
  fileName: string;
  data: Buffer;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const absent = (v: unknown) => v === undefined || v === null || v === '';
const invalid = (message: string, field: string) => new FaxError('INVALID_PARAMETER', message, { field });

export function parseTemplateKind(v: unknown, field = 'kind'): TemplateKind {
  if (typeof v === 'string' && (TEMPLATE_KINDS as readonly string[]).includes(v)) return v as TemplateKind;
  throw invalid(`${field} must be "template" (a cover page) or "smartDocument" (appended after the attachments)`, field);
}

export function parseTemplateCreate(p: Record<string, unknown>): TemplateCreateRequest {
  parseTemplateKind(p.kind);
  if (absent(p.fileData)) throw invalid('fileData is required: the file, base64-encoded', 'fileData');
  return templateUpload(p, decodeBase64(p.fileData, 'fileData', 'fileData'));
}

/** kind, name and fileName of `p` with the file's bytes (the dashboard's upload gives them as a file). */
export function templateUpload(p: Record<string, unknown>, data: Buffer): TemplateCreateRequest {
  const kind = parseTemplateKind(p.kind);
  const fileName = cleanName(p.fileName, 'fileName', MAX_FILE_NAME, true) ?? (kind === 'template' ? 'template.txt' : 'document');
  const name = cleanName(p.name, 'name', MAX_TEMPLATE_NAME, false) ?? fileName;
  return { kind, name: [...name].slice(0, MAX_TEMPLATE_NAME).join(''), fileName, data };
}

/** A template or smart document id as given (`tpl_...`, `sdoc_...`); any other text is simply not found. */
export function parseTemplateId(v: unknown, field = 'id'): string {
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
