// decodeCall on the recorded sessions of fixtures/sessions (spandsp to spandsp, with sidecars
// saying what was negotiated): the library reads back the mode and the pages the sidecar names,
// at the page sizes of the session's TIFF; a file that is no recording is refused.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCall, FaxError } from '../../src/index.js';
import { readTiff } from '../../src/documents/index.js';

const dir = new URL('../../fixtures/sessions/', import.meta.url);
interface Sidecar {
  expected: { modulation: string; bitRate: number; ecm: boolean; compression: string; pages: number };
  document: string;
}

describe('decodeCall', () => {
  it.each(['audio-v17-14400-ecm-mmr.wav', 'audio-v29-9600-mr.wav', 't38-v17-14400-ecm-mmr.pcap'])('%s: mode and pages as recorded', async (file) => {
    const side = JSON.parse(readFileSync(new URL(file.replace(/\.(wav|pcap)$/, '.json'), dir), 'utf8')) as Sidecar;
    const call = await decodeCall(new URL(file, dir).pathname);
    expect(call.format).toBe(file.endsWith('.pcap') ? 'pcap' : 'wav');
    expect(call.frames.bad).toBe(0);
    expect(call.frames.ok).toBeGreaterThan(5);
    expect({ bitRate: call.bitRate, ecm: call.ecm, compression: call.compression?.toLowerCase() }).toEqual({
      bitRate: side.expected.bitRate, ecm: side.expected.ecm, compression: side.expected.compression,
    });
    expect(call.mode?.confirmed).toBe(true);
    expect(call.pagesDecoded).toBe(side.expected.pages);
    const ours = readTiff(call.tiff!);
    const sent = readTiff(readFileSync(new URL(side.document, dir)));
    expect(ours.map((p) => [p.width, p.height])).toEqual(sent.map((p) => [p.width, p.height]));
  });

  it('bytes that are no recording → FaxError', async () => {
    const err = await decodeCall(Buffer.from('%PDF-1.4 not a call'), { format: 'wav' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FaxError);
  });
});
