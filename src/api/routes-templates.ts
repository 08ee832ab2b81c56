// Cover-page templates and smart documents (docs/api.md decision 15): create from a base64 file,
// list, delete and a PNG preview, all scoped to the caller's account.
import type { FastifyInstance } from 'fastify';
import type { TemplateRecord } from '../store/index.js';
import { defineRoute, type ApiOptions } from './route.js';
import { ok } from './envelope.js';
import { TEMPLATE_CREATE_ENDPOINT, TEMPLATE_DELETE, TEMPLATE_LIST, TEMPLATE_PREVIEW } from './endpoints.js';
import { templateRequest } from './validate/index.js';

/** The API shape of a template or smart document. */
function templateObject(t: TemplateRecord) {
  return {
    id: t.id, kind: t.kind, name: t.name, fileName: t.fileName, format: t.format, pageCount: t.pageCount,
    size: t.byteLength, createdAt: new Date(t.createdAtMs).toISOString(),
  };
}

export function registerTemplateRoutes(app: FastifyInstance, o: ApiOptions): void {
  const lib = o.service.templates;

  defineRoute(app, TEMPLATE_CREATE_ENDPOINT, { POST: async ({ caller, input }) => {
    const t = await lib.create(caller, templateRequest(input()));
    return ok(`${t.kind === 'template' ? 'Template' : 'Smart document'} ${t.id} created`, templateObject(t));
  } });

  defineRoute(app, TEMPLATE_LIST, { GET: async ({ caller, input }) => {
    const list = await lib.list(caller, input().kind);
    return ok(`${list.length} templates and smart documents`, { templates: list.map(templateObject) });
  } });

  defineRoute(app, TEMPLATE_DELETE, { POST: async ({ caller, input }) => {
    const { id } = input();
    await lib.delete(caller, id);
    return ok(`${id} deleted`, { id });
  } });

  defineRoute(app, TEMPLATE_PREVIEW, { GET: async ({ reply, caller, input }) => {
    const { id, width } = input();
    const png = await lib.preview(caller, id, width);
    reply.header('Content-Type', 'image/png');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.send(png);
  } });
}
