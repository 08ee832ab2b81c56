// `faxstack send --via sip:…` as a real process against SIPp (the gateway): a T.38 call to the
// spandsp t38peer behind it delivers the page (same --json line and exit status as the other
// VIA forms); a gateway answering 486 is "line busy" (-3101, exit 1), named by its SIP status.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { built, run } from '../cli/helpers.js';
import { SpandspPeer } from './peer.js';
import { runPeerRealtime, sippMissing, startSipp } from './sip/harness.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';

const missing = sippMissing();
const t38Build = buildPeer();
const runnable = !missing && t38Build.ok && built;

describe.skipIf(!runnable && !INTEROP_REQUIRED)('faxstack send --via sip: against SIPp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-cli-sip-'));
  const doc = join(dir, 'letter.txt');
  writeFileSync(doc, 'A fax placed by faxstack send over SIP and T.38.\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has sipp, the spandsp t38peer and dist/', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason, built ? '' : 'dist/ missing']).toEqual(['', '', '']);
  });

  it('T.38 through the gateway: delivered, the --json line as for udptl://', async () => {
    const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'receive', tiff: join(dir, 'received.tif'), ecm: true });
    const clock = runPeerRealtime(peer);
    const sipp = await startSipp('uas-t38.xml', { transport: 'udp', keys: { t38_port: peer.port } });
    try {
      const r = await run(['send', doc, '--via', `sip:+14155550123@127.0.0.1:${sipp.port}`, '--media', 't38', '--ident', '+14155550100', '--quality', 'Low', '--json']);
      const line = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
      expect(line, r.stderr + (await sipp.done).output.slice(-2000)).toMatchObject({ success: true, code: 0, pages: 1, pagesTotal: 1, ecm: true });
      expect(r.code).toBe(0);
    } finally {
      await clock.stop();
      sipp.kill();
      peer.kill();
    }
  }, 90_000);

  it('486 from the gateway: line busy, exit 1', async () => {
    const sipp = await startSipp('uas-486.xml', { transport: 'udp' });
    try {
      const r = await run(['send', doc, '--via', `sip:+14165550486@127.0.0.1:${sipp.port}`, '--json']);
      const line = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
      expect(line).toMatchObject({ success: false, code: -3101, pages: 0 });
      expect(line.message).toContain('486');
      expect(r.code).toBe(1);
    } finally {
      sipp.kill();
    }
  }, 60_000);

  it('refuses a malformed sip: VIA and SIP flags on other lines with exit 2', async () => {
    const bad = await run(['send', doc, '--via', 'sip:+1415@127.0.0.1;transport=sctp']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('transport must be udp or tcp')]);
    const flags = await run(['send', doc, '--via', 'udptl://127.0.0.1:9', '--media', 't38']);
    expect([flags.code, flags.stderr]).toEqual([2, expect.stringContaining('are for sip: calls')]);
  });
});
