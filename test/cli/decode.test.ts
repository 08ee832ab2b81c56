// `faxstack decode` on capture files of a call made by our own T.30 and modems: the report
// lines, --json, --pages-out (pages identical to the source), raw audio by extension and by
// --format/--law/--channels, a pcap with --caller, and the exit statuses for captures with no
// call, unreadable files and bad options.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulawEncode } from '../../native-free-dsp/index.js';
import { firstDifference } from '../../src/codecs/index.js';
import { decodeCommand } from '../../src/cli/decode.js';
import { UsageError } from '../../src/cli/args.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { mixDown, recordCall, renderCall } from '../kit/call-synth.js';
import { writePcap, writeWav } from '../../src/analysis/index.js';
import { textPage } from '../vectors/synthetic-pages.js';

let dir: string;
const files: Record<string, string> = {};
const pages = [textPage(1728, 220, 21), textPage(1728, 140, 22)];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faxstack-decode-'));
  const call = await recordCall({ pages, ecm: true });
  const [caller, answerer] = renderCall(call.commands);
  const put = (name: string, bytes: Uint8Array) => {
    files[name] = join(dir, name);
    writeFileSync(files[name], bytes);
  };
  put('call.wav', writeWav([caller, answerer], 'ulaw'));
  const mono = mixDown([caller, answerer]);
  const ulaw = new Uint8Array(mono.length);
  ulawEncode(mono, ulaw);
  put('call.ul', ulaw);
  put('call.bin', ulaw);
  const stereo = new Uint8Array(caller.length * 4);
  const v = new DataView(stereo.buffer);
  for (let i = 0; i < caller.length; i++) (v.setInt16(4 * i, caller[i]!, true), v.setInt16(4 * i + 2, answerer[i]!, true));
  put('stereo.raw', stereo);
  const a = { host: '192.0.2.1', port: 4000 };
  const b = { host: '192.0.2.2', port: 4002 };
  put('call.pcap', writePcap(call.datagrams.map((d) => ({ timeUs: 1.7e15 + d.atMs * 1000, src: d.from === 'caller' ? a : b, dst: d.from === 'caller' ? b : a, payload: d.data }))));
  put('silence.wav', writeWav([new Int16Array(8000 * 3)]));
  put('garbage.wav', new TextEncoder().encode('RIFF....WAVEfmt nonsense'));
  put('notes.txt', new TextEncoder().encode('not a capture at all'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await decodeCommand(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

function expectCallLines(out: string): void {
  expect(out).toMatch(/^\d\d:\d\d\.\d{3} {2}answerer→caller {2}DIS {2}V\.17 V\.29 V\.27ter, ECM, MH MR MMR/m);
  expect(out).toMatch(/^\d\d:\d\d\.\d{3} {2}caller→answerer {2}DCS {2}V\.17 14400, ECM, MMR, R8×7\.7, A4/m);
  expect(out).toMatch(/ {2}TCF {2}V\.17 14400 long training: 1\.50 s, longest zero run 1\.50 s, 0 errors → OK$/m);
  expect(out).toMatch(/ {2}page 1: 1728×220, 0 bad rows \[V\.17 14400, ECM, MMR, \d+ frames\]$/m);
  expect(out).toMatch(/ {2}page 2: 1728×140, 0 bad rows/m);
  expect(out).toMatch(/^mode: V\.17 14400, ECM, MMR, R8×7\.7, A4/m);
  expect(out).toMatch(/^idents: caller "\+1 555 0100", answerer "\+1 555 0199"$/m);
}

describe('faxstack decode', () => {
  it('a stereo WAV: the frames, the TCF verdict, the pages; --pages-out writes them', async () => {
    const tif = join(dir, 'pages.tif');
    const r = await run([files['call.wav']!, '--pages-out', tif]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^capture: stereo WAV, µ-law, \d+\.\d s$/m);
    expectCallLines(r.out);
    expect(r.out).toMatch(/^2 pages written to .*pages\.tif \(\d+ bytes\)$/m);
    const back = readTiff(await readFile(tif));
    expect(back).toHaveLength(2);
    back.forEach((p, i) => {
      expect(firstDifference(p.bitmap, pages[i]!)).toBeNull();
      expect([p.xDpi, Math.round(p.yDpi!)]).toEqual([204, 196]);
    });
  });

  it('--out DIR writes DIR/NAME.tif (docs/cli.md contract); with --pages-out too it is a usage error', async () => {
    const out = join(dir, 'out-dir', 'nested');
    const r = await run([files['call.wav']!, '--out', out]);
    expect(r.code, r.err).toBe(0);
    const back = readTiff(await readFile(join(out, 'call.tif')));
    expect(back).toHaveLength(2);
    back.forEach((p, i) => expect(firstDifference(p.bitmap, pages[i]!)).toBeNull());
    await expect(run([files['call.wav']!, '--out', out, '--pages-out', join(dir, 'x.tif')])).rejects.toThrow(/give one/);
  });

  it('--json: one object on the last line', async () => {
    const r = await run([files['call.wav']!, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out.trim().split('\n').at(-1)!);
    expect(j).toMatchObject({
      success: true,
      code: 0,
      format: 'wav',
      pages: 2,
      pagesTotal: 2,
      bitRate: 14400,
      ecm: true,
      compression: 'MMR',
      resolution: '204x196',
      remoteIdent: '+1 555 0199',
      frames: { ok: 10, bad: 0 },
    });
    expect(j.events.map((e: { label: string }) => e.label)).toEqual(['CNG', 'CED', 'CSI', 'DIS', 'TSI', 'DCS', 'TCF', 'CFR', 'page 1:', 'PPS', 'MCF', 'page 2:', 'PPS', 'MCF', 'DCN']);
    expect(j.captureMs).toBeGreaterThan(20_000);
    expect(j.durationMs).toBeLessThan(j.captureMs / 5);
  });

  it.each([
    ['µ-law by its extension (.ul), mono', ['call.ul'], /^capture: mono raw audio, µ-law/m],
    ['--format ulaw for a file whose name says nothing', ['call.bin', '--format', 'ulaw'], /^capture: mono raw audio, µ-law/m],
    ['--format raw --law ulaw', ['call.bin', '--format', 'raw', '--law', 'ulaw'], /^capture: mono raw audio, µ-law/m],
    ['s16le stereo with --channels 2', ['stereo.raw', '--channels', '2'], /^capture: stereo raw audio, 16-bit PCM/m],
    ['a pcap of the T.38 packets', ['call.pcap'], /^capture: pcap, \d+ UDPTL datagrams, T\.38 version 0, caller 192\.0\.2\.1:4000, answerer 192\.0\.2\.2:4002/m],
  ])('%s', async (_n, args, capture) => {
    const [name, ...rest] = args;
    const r = await run([files[name!]!, ...rest]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(capture);
    expectCallLines(r.out);
  });

  it('--caller on a pcap names the caller', async () => {
    const r = await run([files['call.pcap']!, '--caller', '192.0.2.2:4002']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/caller 192\.0\.2\.2:4002/);
    expect(r.out).toMatch(/caller→answerer {2}DIS/);
  });

  it('a capture with no fax call: exit 1, and --pages-out has nothing to write', async () => {
    const r = await run([files['silence.wav']!, '--pages-out', join(dir, 'none.tif')]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/no T\.30 frames found/);
    expect(r.err).toMatch(/no fax call found.*no decoded pages to write/);
    const j = JSON.parse((await run([files['silence.wav']!, '--json'])).out.trim());
    expect(j).toMatchObject({ success: false, code: -3103, pages: 0 });
  });

  it.each([
    ['a file that does not exist', ['nope.wav'], /cannot read .*nope\.wav: ENOENT/],
    ['a directory', ['.'], /is not a file/],
    ['a broken WAV', ['garbage.wav'], /garbage\.wav: Invalid file format: WAV/],
    ['something that is no capture', ['notes.txt'], /not a WAV or pcap file; for headerless audio say --format raw/],
    ['a WAV read as pcap', ['call.wav', '--format', 'pcap'], /pcap: bad magic number/],
    ['a --caller that sent nothing', ['call.pcap', '--caller', '198.51.100.9:1234'], /no datagrams from 198\.51\.100\.9:1234/],
  ])('%s: exit 2 with the reason', async (_n, args, message) => {
    const [name, ...rest] = args;
    const path = name === '.' ? dir : (files[name!] ?? join(dir, name!));
    const r = await run([path, ...rest]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    const j = await run([path, ...rest, '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out.trim())).toMatchObject({ success: false, pages: 0 });
  });

  it.each([
    [[], /no capture file/],
    [['a.wav', 'b.wav'], /one capture file at a time/],
    [['a.wav', '--format', 'mp3'], /--format must be one of/],
    [['a.wav', '--law', 'g722'], /--law must be ulaw, alaw or s16le/],
    [['a.wav', '--channels', '3'], /--channels must be 1 or 2/],
    [['a.pcap', '--caller', 'somewhere'], /--caller must be HOST:PORT/],
    [['a.wav', '--bogus'], /unknown option --bogus/],
  ])('usage error: %j', async (argv, message) => {
    await expect(run(argv)).rejects.toThrow(UsageError);
    await expect(run(argv)).rejects.toThrow(message);
  });
});
