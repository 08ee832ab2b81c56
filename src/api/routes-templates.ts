// Cover-page templates and smart documents (docs/api.md decision 15): create from a base64 file,
// list, delete and a PNG preview, all scoped to the caller's account.
import type { FastifyInstance } from 'fastify';
import { FaxError } from '../shared/errors.js';
import type { TemplateRecord } from '../store/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { requirePrimary } from './permissions.js';
import { parseJobId } from './validate/index.js';
import { parseTemplateCreate, parseTemplateId, parseTemplateKind } from './validate/templates.js';

/** The API shape of a template or smart document. */
export function templateObject(t: TemplateRecord) {
  return {
    id: t.id, kind: t.kind, name: t.name, fileName: t.fileName, format: t.format, pageCount: t.pageCount,
    size: t.byteLength, createdAt: new Date(t.createdAtMs).toISOString(),
  };
}

export function registerTemplateRoutes(app: FastifyInstance, o: ApiOptions): void {
  const lib = o.service.templates;

  defineRoute(app, '/customer/template-create', ['POST'], async ({ params, caller }) => {
    requirePrimary(caller, 'uploading a template');
    const t = await lib.create(caller, parseTemplateCreate(params));
    return ok(`${t.kind === 'template' ? 'Template' : 'Smart document'} ${t.id} created`, templateObject(t));
  });

  defineRoute(app, '/customer/template-list', ['GET'], async ({ params, caller }) => {
    const kind = params.kind === undefined || params.kind === '' ? undefined : parseTemplateKind(params.kind);
    const list = await lib.list(caller, kind);
    return ok(`${list.length} templates and smart documents`, { templates: list.map(templateObject) });
  });

  defineRoute(app, '/customer/template-delete', ['POST'], async ({ params, caller }) => {
    requirePrimary(caller, 'deleting a template');
    const id = parseTemplateId(params.id);
    await lib.delete(caller, id);
    return ok(`${id} deleted`, { id });
  });

  defineRoute(app, '/customer/template-preview', ['GET'], async ({ reply, params, caller }) => {
    const id = parseTemplateId(params.id);
    const width = params.width === undefined || params.width === '' ? undefined : parseJobId(params.width, 'width');
    if (width !== undefined && (width < 16 || width > 1728)) throw new FaxError('INVALID_PARAMETER', 'width must be from 16 to 1728 pixels', { field: 'width' });
    const png = await lib.preview(caller, id, width);
    reply.header('Content-Type', 'image/png');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(png);
  });
}
