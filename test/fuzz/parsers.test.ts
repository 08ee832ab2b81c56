// The wire and file parsers below the documents: T.4/T.6 decoders (MH, MR, MMR), T.30 frames and
// their FIFs (DIS, DCS, CTC, idents, NSF, PPS, EOR) and the T.30 machine fed mutated frames, RTP,
// WAV and pcap captures (and the whole `faxstack decode` analysis), and the gateways file. Each
// returns a bounded result or throws its module's documented error type. (UDPTL/IFP has its own
// fuzz test beside it: src/transport/t38/udptl-fuzz.test.ts.)
import { describe, expect, it } from 'vitest';
import { CodecError, decodeMH, decodeMMR, decodeMR, encodeMH, encodeMMR, encodeMR } from '../../src/codecs/index.js';
import { checkerboard, randomRuns, textPage } from '../vectors/synthetic-pages.js';
import { DIS_DEFAULTS, decodeCtc, decodeDcs, decodeDis, encodeDcs, encodeDis } from '../../src/t30/dis.js';
import { buildFrame, Fcf, fcfByte, parseFrame } from '../../src/t30/fcf.js';
import { decodeIdent, decodeNsf, encodeIdent } from '../../src/t30/ident.js';
import { parseEor, parsePps, ppsFrame } from '../../src/t30/ecm.js';
import { createT30, step } from '../../src/t30/machine.js';
import type { T30Config, T30Input } from '../../src/t30/types.js';
import { decodeRtp, encodeRtp, looksLikeRtcp } from '../../src/transport/rtp/rtp.js';
import { RtpError } from '../../src/transport/rtp/errors.js';
import { analyzeCapture, CaptureError, readPcap, readWav, sniffCapture, writePcap, writeWav } from '../../src/analysis/index.js';
import { encodeUdptl } from '../../src/transport/t38/udptl.js';
import { encodeIfp } from '../../src/transport/t38/ifp.js';
import { GatewayConfigError, parseGatewaysJson } from '../../src/engine/gateways.js';
import { FaxError } from '../../src/shared/errors.js';
import { ConfigError, loadConfig } from '../../src/cli/config.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzz, iterations, mutateJson } from './fuzz.js';

const WIDTH = 1728;
const MAX_HEIGHT = 3000;

describe('T.4 / T.6 decoders', () => {
  const pages = [randomRuns(WIDTH, 30, 3), checkerboard(WIDTH, 12, 8), textPage(WIDTH, 40, 2)];
  const cases = [
    ['MH', pages.map((p) => encodeMH(p)), (b: Uint8Array, repeat: boolean) => decodeMH(b, { width: WIDTH, maxHeight: MAX_HEIGHT, badLines: repeat ? 'repeat' : 'throw' })],
    ['MR', pages.map((p) => encodeMR(p, { k: 4 })), (b: Uint8Array, repeat: boolean) => decodeMR(b, { width: WIDTH, maxHeight: MAX_HEIGHT, badLines: repeat ? 'repeat' : 'throw' })],
    ['MMR', pages.map((p) => encodeMMR(p)), (b: Uint8Array) => decodeMMR(b, { width: WIDTH, maxHeight: MAX_HEIGHT })],
  ] as const;
  it.each(cases)('%s: a page of at most maxHeight lines, or a CodecError', async (name, seeds, decode) => {
    await fuzz({
      name: `decode ${name}`,
      seeds,
      count: iterations(3000),
      run(input, m) {
        const page = decode(input, m.rnd() < 0.5);
        expect(page.width).toBe(WIDTH);
        expect(page.height).toBeLessThanOrEqual(MAX_HEIGHT);
        expect(page.data.length).toBeGreaterThanOrEqual(page.stride * page.height);
      },
      expected: (e) => e instanceof CodecError,
      label: (e) => `CodecError:${(e as CodecError).kind}`,
    });
  });
});

describe('T.30 frames', () => {
  const dis = encodeDis({ ...DIS_DEFAULTS, readyToReceive: true, modems: { v27ter: true, v29: true, v17: true }, ecm: true, t6: true, twoD: true });
  const dcs = encodeDcs({ receive: true, modem: { modulation: 'v17', bitRate: 14400 }, resolution: 'R8_FINE', coding: 'mmr', width: 'a4', length: 'a4', scanLineMs: 0, ecm: true, ecmFrameSize: 256, subaddress: false, senderId: false });
  const FRAMES = [
    buildFrame(Fcf.DIS, dis), buildFrame(fcfByte('DCS', 1), dcs), buildFrame(Fcf.CSI, encodeIdent('+1 415 555 0100')),
    buildFrame(Fcf.NSF, [0xb5, 0x00, 0x2e, 1, 2, 3]), buildFrame(Fcf.NSF, [0xff, 0x00, 0x01]), ppsFrame({ fcf2: 'MPS', page: 1, block: 0, frames: 256 }, 1),
    buildFrame(fcfByte('EOR', 0), [fcfByte('EOP', 0)]), buildFrame(fcfByte('CTC', 0), [0, 0x2c]), buildFrame(fcfByte('PPR', 0), new Uint8Array(32).fill(0x0f)),
    buildFrame(fcfByte('MCF', 0)), buildFrame(Fcf.FCD, [0, 1, 2, 3], false), buildFrame(Fcf.RCP, [], false),
  ];

  it('every FIF decoder returns (they are total: undefined or { ok: false } for nonsense)', async () => {
    await fuzz({
      name: 't30 frame decoders',
      seeds: FRAMES,
      count: iterations(5000),
      run(input) {
        const f = parseFrame(input);
        const fif = f ? f.info : input;
        decodeDis(fif);
        const d = decodeDcs(fif);
        if (d.ok) expect(['mh', 'mr', 'mmr']).toContain(d.dcs.coding);
        decodeCtc(fif);
        expect(decodeIdent(fif).length).toBeLessThanOrEqual(20);
        decodeNsf(fif);
        parsePps(fif);
        parseEor(fif);
      },
      expected: () => false,
    });
  });

  it('the T.30 machine takes mutated frames in any state without throwing', async () => {
    const PAGE = textPage(WIDTH, 40, 1);
    const configs: T30Config[] = [{ role: 'caller', source: { count: 2, get: () => PAGE } }, { role: 'answerer' }];
    const inputs = (f: Uint8Array, m: { rnd(): number; int(n: number): number }): T30Input[] => [
      { kind: 'hdlc', frame: f, crcOk: m.rnd() > 0.1 },
      m.rnd() < 0.5 ? { kind: 'tx-done' } : { kind: 'timeout', timer: (['T1', 'T2', 'T4'] as const)[m.int(3)]! },
    ];
    await fuzz({
      name: 't30 machine',
      seeds: FRAMES,
      count: iterations(400),
      run(input, m) {
        let s = createT30(configs[m.int(2)]!);
        s = step(s, { kind: 'start' }).state;
        for (let k = 0; k < 30; k++) {
          const frame = m.rnd() < 0.5 ? m.mutate(FRAMES[m.int(FRAMES.length)]!, FRAMES) : input;
          for (const inp of inputs(frame, m)) s = step(s, inp).state;
        }
      },
      expected: () => false,
    });
  });
});

describe('RTP', () => {
  const seeds = [
    encodeRtp({ payloadType: 0, sequenceNumber: 1, timestamp: 160, ssrc: 0x1234, marker: false }, new Uint8Array(160).fill(0xff)),
    encodeRtp({ payloadType: 8, sequenceNumber: 65535, timestamp: 0xffffffff, ssrc: 1, marker: true }, new Uint8Array(80), { paddingBytes: 4 }),
    Uint8Array.from([0x93, 0x80, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 7, 0xbe, 0xde, 0, 1, 1, 2, 3, 4, 0xd5, 0xd5]), // CSRCs + extension
  ];
  it('decodeRtp returns a result and never throws; a packet fits in its datagram', async () => {
    await fuzz({
      name: 'decodeRtp',
      seeds,
      count: iterations(5000),
      run(input) {
        looksLikeRtcp(input);
        const r = decodeRtp(input);
        if (r.ok) expect(r.packet.payload.length).toBeLessThanOrEqual(input.length);
        else expect(r.error).toBeInstanceOf(RtpError);
      },
      expected: () => false,
    });
  });
});

describe('captures', () => {
  const tone = Int16Array.from({ length: 4000 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));
  const wavs = [writeWav([tone]), writeWav([tone, tone], 'ulaw'), writeWav([tone], 'alaw')];
  const udptl = (seq: number) => encodeUdptl({ seq, primary: encodeIfp({ type: 't30-indicator', indicator: 'cng' }, 0), errorRecovery: { type: 'secondary-ifp-packets', packets: [] } });
  const pcaps = [
    writePcap([0, 1, 2].map((i) => ({ timeUs: i * 20_000, src: { host: '10.0.0.1', port: 4000 }, dst: { host: '10.0.0.2', port: 4002 }, payload: udptl(i) })) as never),
    writePcap([{ timeUs: 0, src: { host: '::1', port: 5 }, dst: { host: '::2', port: 6 }, payload: new Uint8Array(172) }] as never, { linkType: 113, bigEndian: true, nanoseconds: true }),
    writePcap([{ timeUs: 0, src: { host: '10.0.0.1', port: 5 }, dst: { host: '10.0.0.2', port: 6 }, payload: udptl(0) }] as never, { linkType: 101 }),
  ];
  const isCaptureError = (e: unknown) => e instanceof CaptureError;

  it('readWav: samples within maxSeconds, or a CaptureError', async () => {
    await fuzz({
      name: 'readWav',
      seeds: wavs,
      count: iterations(4000),
      run(input) {
        sniffCapture(input);
        const c = readWav(input, { maxSeconds: 10 });
        for (const ch of c.channels) expect(ch.length).toBeLessThanOrEqual(10 * 8000);
      },
      expected: isCaptureError,
      label: (e) => `CaptureError:${(e as CaptureError).reason}`,
    });
  });

  it('readPcap: datagrams within maxRecords, or a CaptureError', async () => {
    await fuzz({
      name: 'readPcap',
      seeds: pcaps,
      count: iterations(4000),
      run(input) {
        const c = readPcap(input, { maxRecords: 1000 });
        expect(c.datagrams.length).toBeLessThanOrEqual(1000);
      },
      expected: isCaptureError,
      label: (e) => `CaptureError:${(e as CaptureError).reason}`,
    });
  });

  it('the whole capture analysis (faxstack decode) on mutated pcaps and WAVs: a report or a FaxError', async () => {
    await fuzz({
      name: 'analyzeCapture',
      seeds: [...pcaps, ...wavs],
      count: iterations(300),
      randomShare: 0.05,
      run(input) {
        analyzeCapture(input, {});
      },
      expected: (e) => e instanceof FaxError,
      label: (e) => `${(e as Error).name}`,
    });
  });
});

describe('gateways file', () => {
  const good = JSON.stringify({
    line: 'gateways',
    retry: { maxAttempts: 2, retryDelaysMs: [1000, 5000] },
    gateways: [
      { name: 'carrier-a', address: 'sip.example.com:5060', transport: 'udp', username: 'u', password: 'p', channels: 4, media: 't38-or-audio', callerId: '+14155550100', rewrite: [{ match: '^\\+1', replace: '1' }], prefixes: ['+1'], inbound: { port: 5070 }, register: { expiresS: 300 }, reinviteT38: true },
      { name: 'b', address: '127.0.0.1', channels: 1, media: 'virtual' },
    ],
  });
  it('parseGatewaysJson: a config or a GatewayConfigError naming the field', async () => {
    await fuzz({
      name: 'parseGatewaysJson',
      seeds: [Buffer.from(good), Buffer.from(JSON.stringify({ gateways: [] })), Buffer.from('{"gateways":[{"name":"x","address":"[::1]:5070"}]}')],
      count: iterations(4000),
      // Half the cases mutate the text (bytes), half the structure (values of the wrong type or size).
      run: (input, m) => void parseGatewaysJson(m.rnd() < 0.5 ? Buffer.from(input).toString('utf8') : JSON.stringify(mutateJson(JSON.parse(good), m)), 'fuzz.json'),
      expected: (e) => e instanceof GatewayConfigError,
      label: () => 'GatewayConfigError',
    });
  });
});

describe('serve/daemon configuration (file and environment)', () => {
  const good = {
    port: 8080, host: '127.0.0.1', data: './data', store: 'sqlite:./data/faxstack.db', shutdownGraceSeconds: 30,
    sessionSecret: 'x'.repeat(40), fetchAllowHosts: ['docs.example.com', '203.0.113.7'], renderThreads: 2,
    allowPrivateWebhooks: false, rateLimits: { perHour: 1000, burst: 50, inFlight: 20 }, logLevel: 'warn',
  };
  const ENV = ['FAXSTACK_PORT', 'FAXSTACK_HOST', 'FAXSTACK_RENDER_THREADS', 'FAXSTACK_FETCH_ALLOW_HOSTS', 'FAXSTACK_SHUTDOWN_GRACE', 'FAXSTACK_ALLOW_PRIVATE_WEBHOOKS', 'FAXSTACK_LOG_LEVEL', 'FAXSTACK_STORE'];
  it('loadConfig: a configuration or a ConfigError listing the problems', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-fuzz-config-'));
    try {
      const file = join(dir, 'config.json');
      await fuzz({
        name: 'loadConfig',
        seeds: [Buffer.from(JSON.stringify(good))],
        count: iterations(2000),
        run(input, m) {
          writeFileSync(file, m.rnd() < 0.4 ? input : JSON.stringify(mutateJson(good, m)));
          const env: Record<string, string> = {};
          if (m.rnd() < 0.3) env[m.pick(ENV)] = m.pick(['', '-1', '1e400', '0x10', ' 8080 ', 'true', 'yes', '\u0000', 'a,b,,c', '65536', '99999999999999999999', 'debug']);
          const cfg = loadConfig({ config: file }, env, dir);
          expect(cfg.port >= 0 && cfg.port <= 65535).toBe(true);
        },
        expected: (e) => e instanceof ConfigError && e.problems.length > 0,
        label: () => 'ConfigError',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
