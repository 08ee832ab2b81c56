// The answers of the running service against the OpenAPI document it serves (docs/api.md,
// endpoints): each 200 answer's envelope, its `data` included, is valid under the operation's
// documented response schema (JSON Schema 2020-12, with the document's components).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { b64, inline, NUM, startHarness, type ApiResponse, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface Doc { components: object; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> }

it('every answer below is what the document says the operation answers', async () => {
  const doc = (await h.call('/openapi.json')).body as unknown as Doc;
  const ajv = new Ajv2020({ strict: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addKeyword('components'); // the document's root, which $ref points into
  const check = <D>(method: string, path: string, r: ApiResponse<D>): ApiResponse<D> => {
    expect(r.http, r.raw).toBe(200);
    const schema = doc.paths[path]![method]!.responses['200']!.content!['application/json']!.schema;
    const validate = ajv.compile({ ...schema, components: doc.components });
    expect(validate(r.body), `${method.toUpperCase()} ${path}: ${JSON.stringify(validate.errors)} in ${r.raw}`).toBe(true);
    return r;
  };

  const a = await h.account();
  const key = a.testKey;
  const sent = check('post', '/customer/fax-send', await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] }));
  const jobId = sent.body.data.jobId;
  check('get', '/customer/fax-status', await h.call('/customer/fax-status', { key, query: { jobId } }));
  await h.finish(a, jobId);
  check('get', '/customer/fax-status', await h.call('/customer/fax-status', { key, query: { jobId } }));
  check('get', '/customer/fax-list', await h.call('/customer/fax-list', { key }));
  check('post', '/customer/fax-resend', await h.call('/customer/fax-resend', { key, json: { jobId } }));
  const later = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: new Date(h.clock.now() + 3_600_000).toISOString() });
  check('post', '/customer/fax-cancel', await h.call('/customer/fax-cancel', { key, json: { jobId: later.body.data.jobId } }));
  check('get', '/customer/account', await h.call('/customer/account', { key }));
  check('post', '/customer/caller-id-add', await h.call('/customer/caller-id-add', { key, json: { number: '+12125550142' } }));
  check('get', '/customer/caller-id-list', await h.call('/customer/caller-id-list', { key }));
  check('post', '/customer/caller-id-remove', await h.call('/customer/caller-id-remove', { key, json: { number: '+12125550142' } }));
  check('get', '/customer/webhook-settings', await h.call('/customer/webhook-settings', { key }));
  check('post', '/customer/webhook-settings', await h.call('/customer/webhook-settings', { key, json: { rotateSecret: true } }));
  check('get', '/customer/webhook-deliveries', await h.call('/customer/webhook-deliveries', { key }));
  const t = check('post', '/customer/template-create', await h.call('/customer/template-create', { key, json: { kind: 'template', fileData: b64(Buffer.from('{{subject}}')) } }));
  check('get', '/customer/template-list', await h.call('/customer/template-list', { key }));
  check('post', '/customer/template-delete', await h.call('/customer/template-delete', { key, json: { id: String(t.body.data.id) } }));
  check('get', '/health', await h.call('/health'));
});
