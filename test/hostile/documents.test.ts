// The hostile document corpus (corpus/documents.ts) sent as fileData through the real HTTP API
// with a live key. Each document is refused at fax-send with its documented code and field
// (nothing created, nothing reserved), or accepted and then failed in the preparing stage with
// its code — before any call, with the reservation released (nothing charged) — or, when it is
// merely odd, delivered. Bombs are generated here, never committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_DOCUMENTS } from './corpus/documents.js';
import { NUM, b64, expectError, startHarness, type ApiResponse, type Harness } from '../e2e/harness.js';
import { errorByCode } from '../../src/shared/errors.js';
import { KIND_STATUS } from '../../src/api/envelope.js';

const BALANCE = 10_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('hostile documents through fax-send', () => {
  const table = ALL_DOCUMENTS.map((d) => ({ ...d, label: `${d.name} → ${d.expect.at === 'delivered' ? 'delivered' : `${d.expect.at} ${d.expect.code}`}` }));
  it.each(table)('$label', async (d) => {
    const a = await h.account({ balanceCents: BALANCE });
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'hostile.bin', fileData: b64(d.bytes()) }] }, { live: true });
    const e = d.expect;
    if (e.at === 'request') {
      expectError(r, e.http, e.status, e.code, e.field);
      expect(await h.svc.store.listJobs(a.id, { limit: 5 })).toEqual([]);
      expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(BALANCE);
      return;
    }
    expect(r.http, r.raw).toBe(200);
    const fax = await h.finish(a, r.body.data.jobId, { maxMs: 600_000 });
    if (e.at === 'delivered') {
      expect(fax, fax.message).toMatchObject({ faxStatus: 'delivered', code: 0 });
      expect((await h.svc.store.attempts(r.body.data.jobId)).length).toBe(1); // what a placed call looks like
      return;
    }
    // Failed while preparing: no call was placed, nothing was charged.
    expect(fax, fax.message).toMatchObject({ faxStatus: 'failed', code: e.code, faxTransferredPages: 0 });
    expect(await h.svc.store.attempts(r.body.data.jobId), 'no call was placed').toEqual([]);
    expect(fax.message.length).toBeGreaterThan(0);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(BALANCE);
  }, 120_000);
});

/** A refusal of a document: the envelope with one of the document codes, its status and HTTP status from the table. */
function expectDocumentRefusal(r: ApiResponse): void {
  const code = (r.body?.data as { code?: number } | undefined)?.code ?? 0;
  const def = errorByCode(code);
  expect(def && [-3000, -3003, -3004, -3005, -3006, -3109].includes(code), r.raw.slice(0, 300)).toBe(true);
  expect({ http: r.http, status: r.body.status }).toEqual({ http: KIND_STATUS[def!.kind].http, status: KIND_STATUS[def!.kind].status });
}

describe('hostile documents as templates and smart documents', () => {
  // template-create reads the file like fax-send does; template-preview renders it. Either way the
  // answer is a documented envelope (or the PNG), never a 500.
  it.each(ALL_DOCUMENTS.map((d) => ({ ...d, label: d.name })))('$label: template-create and template-preview answer as documented', async (d) => {
    const a = await h.account();
    for (const kind of ['template', 'smartDocument']) {
      const r = await h.call('/customer/template-create', { key: a.liveKey, json: { kind, name: 'hostile', fileName: 'hostile.bin', fileData: b64(d.bytes()) } });
      expect(r.http, r.raw.slice(0, 300)).not.toBe(500);
      if (r.http !== 200) {
        expectDocumentRefusal(r);
        continue;
      }
      const id = (r.body.data as { id: string }).id;
      const p = await h.call('/customer/template-preview', { key: a.liveKey, query: { id, width: 200 } });
      expect(p.http, p.raw.slice(0, 300)).not.toBe(500);
      if (p.http !== 200) expectDocumentRefusal(p);
    }
  }, 120_000);
});
