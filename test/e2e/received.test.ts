// Issue 4: the virtual line's far end is a real T.30 answerer over in-memory T.38. A fax sent to
// a number that belongs to an account of this service arrives in that account as a received
// fax (direction "received", its pages as transmitted) and emits fax.received
// (docs/api.md decision 11) to that account's webhook.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bitmapEquals } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { b64, signatureValid, startHarness, startReceiver, textDoc, type Harness, type Receiver } from './harness.js';

let h: Harness;
let rcv: Receiver;
beforeEach(async () => {
  h = await startHarness();
  rcv = await startReceiver(h.clock);
});
afterEach(async () => {
  await rcv.close();
  await h.close();
});

describe('faxes to a number of this service', () => {
  it('arrive as a received fax with the pages exactly as sent, and emit fax.received', async () => {
    const sender = await h.account();
    const owner = await h.account({ webhookUrl: rcv.url });
    const ownerNumber = '+14155550177';
    await h.svc.store.db.prepare('UPDATE accounts SET fax_number = ? WHERE id = ?').run(ownerNumber, owner.id);
    const s = await h.send(sender, { faxNumber: ownerNumber, faxData: [{ fileName: 'a.txt', fileData: b64(textDoc(2)) }] });
    const sent = await h.finish(sender, s.body.data.jobId);
    expect(sent).toMatchObject({ faxStatus: 'delivered', faxTransferredPages: 2 });

    const inbox = await h.svc.store.listJobs(owner.id, { limit: 10, direction: 'received' });
    expect(inbox).toHaveLength(1);
    const got = inbox[0]!;
    expect(got).toMatchObject({ direction: 'received', status: 'delivered', code: 0, fromNumber: '+14155550100', toNumber: ownerNumber, totalPages: 2, transferredPages: 2 });
    expect(await h.svc.store.listJobs(sender.id, { limit: 10, direction: 'received' })).toEqual([]);

    // The received pages are the transmitted pages, pixel for pixel.
    const out = readTiff((await h.svc.store.preparedFax(sender.id, sent.jobId))!.tiff);
    const inn = readTiff((await h.svc.store.preparedFax(owner.id, got.jobId))!.tiff);
    expect(inn).toHaveLength(out.length);
    inn.forEach((p, i) => expect(bitmapEquals(p.bitmap, out[i]!.bitmap)).toBe(true));

    // Visible through the API of its owner only.
    const st = await h.status(owner, got.jobId);
    expect(st.body.data).toMatchObject({ direction: 'received', faxStatus: 'delivered', faxTotalPages: 2 });
    expect((await h.status(sender, got.jobId)).http).toBe(404);

    const w = await rcv.next();
    const body = JSON.parse(w.raw.toString()) as { event: string; data: Record<string, unknown> };
    expect(body.event).toBe('fax.received');
    expect(body.data).toMatchObject({ jobId: got.jobId, direction: 'received', faxStatus: 'delivered', faxTransferredPages: 2 });
    expect(signatureValid(w.raw, (await h.svc.store.getAccount(owner.id))!.webhookSecret, w.headers['x-service-signature'])).toBe(true);
  });
});
