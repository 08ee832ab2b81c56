// Dashboard: cover-page templates and smart documents — list with previews (template filled
// with sample fields), upload (multipart, uploads.ts), delete. Uploads go through the same
// validation as customer/template-create; another account's id is a 404 like an unknown one.
import { FaxError } from '../../shared/errors.js';
import { templateUpload } from '../../api/index.js';
import { body, caller, type Dashboard, type SignedIn } from '../kit.js';
import { permissionError } from '../permissions.js';
import { DEFAULT_UPLOAD_LIMITS, uploads } from '../uploads.js';
import { templatesPage } from '../views-templates.js';

const MAX_MB = Math.floor(DEFAULT_UPLOAD_LIMITS.maxBytes / (1024 * 1024));
/** Preview images on the page are drawn this wide. */
const PREVIEW_WIDTH = 600;

function templateId(c: SignedIn): string {
  const v = (c.req.params as Record<string, string>).id ?? '';
  if (!/^(tpl|sdoc)_[A-Za-z0-9_-]{1,40}$/.test(v)) throw new FaxError('NOT_FOUND', `template or smart document "${v.slice(0, 60)}"`);
  return v;
}

export function registerTemplatePages(d: Dashboard): void {
  const lib = d.o.service.templates;
  const list = async (c: SignedIn, status = 200, error: string | null = null, draft?: { kind: 'template' | 'smartDocument'; name: string }) =>
    d.page(c, status, 'Templates', 'templates', templatesPage({
      templates: await lib.list(caller(c.account)), manage: permissionError(c.user, 'POST', '/dashboard/templates') === null, maxMb: MAX_MB, ...(draft ? { draft } : {}),
    }, c.csrf), { error });

  d.route('GET', '/dashboard/templates', (c) => list(c));

  d.route('GET', '/dashboard/templates/:id/preview.png', async (c) => {
    const png = await lib.preview(caller(c.account), templateId(c), PREVIEW_WIDTH);
    c.reply.header('Cache-Control', 'private, max-age=3600');
    return d.send(c, 200, png, 'image/png');
  });

  d.route('POST', '/dashboard/templates/:id/delete', async (c) => {
    await lib.delete(caller(c.account), templateId(c));
    return d.redirect(c, '/dashboard/templates?done=template-deleted');
  });

  d.uploads((route) => {
    route('POST', '/dashboard/templates', async (c) => {
      const b = body(c.req);
      const kind = b.kind === 'smartDocument' ? 'smartDocument' : 'template';
      const draft = { kind, name: typeof b.name === 'string' ? b.name.slice(0, 100) : '' } as const;
      try {
        const [file] = uploads(c.req, 'file');
        if (!file) throw new FaxError('INVALID_PARAMETER', 'choose a file to upload', { field: 'file' });
        await lib.create(caller(c.account), templateUpload({ kind: b.kind, name: b.name, fileName: file.fileName }, file.data));
      } catch (err) {
        if (!(err instanceof FaxError)) throw err;
        return list(c, err.kind === 'too_large' ? 413 : err.kind === 'conflict' ? 409 : 400, err.message, draft);
      }
      return d.redirect(c, '/dashboard/templates?done=template-added');
    });
  });
}
