// `faxstack send --via sip:…` as a real process against SIPp (the gateway): a T.38 call to the
// spandsp t38peer behind it delivers the page (same --json line and exit status as the other
// VIA forms); a gateway answering 486 is "line busy" (-3101, exit 1), named by its SIP status.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { built, run } from '../cli/helpers.js';
import { SpandspPeer } from './peer.js';
import { spawn } from 'node:child_process';
import { BIN } from '../cli/helpers.js';
import { freeUdpPort, runPeerRealtime, sippMissing, startSipp } from './sip/harness.js';
import { startSippUac } from './sip/uac.js';
import { writeCaseDocument } from './t38-matrix.js';
import { closeWorkers, sendFax } from '../../src/index.js';
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

  it('receive --listen sip: answers one call from SIPp (T.38 from the spandsp sender) and writes the page', async () => {
    const sent = join(dir, 'sent.tif');
    writeCaseDocument({ quality: 'Low', compression: 'mmr', pages: 1 }, sent);
    const port = await freeUdpPort();
    const rx = spawn(process.execPath, [BIN, 'receive', '--listen', `sip:127.0.0.1:${port}`, '--out', join(dir, 'in'), '--ident', '+15550002222'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    rx.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => rx.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      rx.stderr.on('data', (c: Buffer) => ((err += c), err.includes('waiting for a SIP fax call') && resolve()));
      rx.once('close', () => reject(new Error(`receive exited: ${err}`)));
    });
    const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'send', tiff: sent, ecm: true });
    const clock = runPeerRealtime(peer);
    const uac = await startSippUac('uac-t38.xml', { target: port, transport: 'udp', keys: { t38_port: peer.port } });
    try {
      const code = await exited;
      expect(out, err + (await uac.done).output.slice(-2000)).toMatch(/^Success: 1 pages written to /);
      expect(code).toBe(0);
    } finally {
      await clock.stop();
      uac.kill();
      peer.kill();
      rx.kill();
    }
  }, 90_000);

  it('the library’s sendFax places the same SIP call: 486 is line busy', async () => {
    const sipp = await startSipp('uas-486.xml', { transport: 'udp' });
    try {
      const r = await sendFax([{ data: Buffer.from('busy\n') }], { via: `sip:+14165550486@127.0.0.1:${sipp.port}`, sip: { media: 't38' }, render: { header: false } });
      expect(r).toMatchObject({ success: false, code: -3101, pages: 0, pagesTotal: 1 });
    } finally {
      sipp.kill();
      await closeWorkers();
    }
  }, 60_000);

  it('refuses a malformed sip: VIA and SIP flags on other lines with exit 2', async () => {
    const bad = await run(['send', doc, '--via', 'sip:+1415@127.0.0.1;transport=sctp']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('transport must be udp or tcp')]);
    const flags = await run(['send', doc, '--via', 'udptl://127.0.0.1:9', '--media', 't38']);
    expect([flags.code, flags.stderr]).toEqual([2, expect.stringContaining('are for sip: calls')]);
  });
});
