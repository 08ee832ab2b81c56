// `faxstack send` and `faxstack receive` as real processes over audio lines on 127.0.0.1: raw PCM
// and RTP G.711 (µ-law, A-law) in lockstep — each frame answered by one frame, so a call runs far
// faster than its line time — and one RTP call paced in real time, as on a real line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countBlack } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { built, freeUdpPort, run } from './helpers.js';

async function call(scheme: (port: number) => string, pacing: 'lockstep' | 'realtime', ecm: 'on' | 'off') {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-audio-'));
  const doc = join(dir, 'letter.txt');
  writeFileSync(doc, 'A letter sent over an audio line\n\nV.17, V.29 or V.27ter over G.711.\n');
  const url = scheme(await freeUdpPort());
  const receiving = run(['receive', '--listen', url, '--out', join(dir, 'in'), '--pacing', pacing, '--ecm', ecm, '--json']);
  const sent = await run(['send', doc, '--via', url, '--ident', '+14155550100', '--pacing', pacing, '--ecm', ecm, '--json']);
  const received = await receiving;
  expect(sent.code, sent.stderr + sent.stdout).toBe(0);
  expect(received.code, received.stderr + received.stdout).toBe(0);
  const tx = JSON.parse(sent.stdout.trim().split('\n').at(-1)!);
  const rx = JSON.parse(received.stdout.trim().split('\n').at(-1)!);
  expect(tx).toMatchObject({ success: true, code: 0, pages: 1, pagesTotal: 1, ecm: ecm === 'on', bitRate: 14400 });
  expect(rx).toMatchObject({ success: true, code: 0, pages: 1, remoteIdent: '+14155550100' });
  const [page] = readTiff(await readFile(rx.file));
  expect([page!.width, page!.xDpi, page!.yDpi]).toEqual([1728, 204, 196]);
  expect(countBlack(page!.bitmap)).toBeGreaterThan(500);
  return { tx, rx };
}

describe.skipIf(!built)('faxstack send → faxstack receive over audio lines', () => {
  it.each([
    ['pcm://', (p: number) => `pcm://127.0.0.1:${p}`, 'on'],
    ['rtp:// µ-law', (p: number) => `rtp://127.0.0.1:${p}?codec=pcmu`, 'off'],
    ['rtp:// A-law', (p: number) => `rtp://127.0.0.1:${p}?codec=pcma`, 'on'],
  ] as const)('%s in lockstep: one page at 14400, ECM as asked', async (_n, scheme, ecm) => {
    await call(scheme, 'lockstep', ecm);
  }, 60_000);

  it('rtp:// µ-law paced in real time: the call takes its line time', async () => {
    const { tx } = await call((p) => `rtp://127.0.0.1:${p}?codec=pcmu`, 'realtime', 'on');
    expect(tx.durationMs).toBeGreaterThan(10_000);
  }, 90_000);

  it('refuses an unknown codec and lockstep on T.38 with exit status 2', async () => {
    const a = await run(['send', '/dev/null', '--via', 'rtp://127.0.0.1:5004?codec=g729', '--json']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/pcmu, pcma/);
    const b = await run(['send', '/dev/null', '--via', 'udptl://127.0.0.1:5004', '--pacing', 'lockstep', '--json']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/lockstep is for pcm/);
  });
});
