// T.38 session parameters: SDP attributes as gateways send them (T.38 Annex D, RFC 3362),
// parsed, formatted back, and answered.
import { describe, expect, it } from 'vitest';
import { T38Error } from './errors.js';
import { answerT38, DEFAULT_T38_PARAMS, errorCorrectionFor, formatT38Attributes, parseT38Attributes, type T38SessionParams } from './session-params.js';

const offer = [
  'm=image 40000 udptl t38',
  'c=IN IP4 192.0.2.10',
  'a=T38FaxVersion:3',
  'a=T38MaxBitRate:14400',
  'a=T38FaxFillBitRemoval',
  'a=T38FaxTranscodingMMR:0',
  'a=T38FaxRateManagement:transferredTCF',
  'a=T38FaxMaxBuffer:2000',
  'a=T38FaxMaxDatagram:400',
  'a=T38FaxUdpEC:t38UDPRedundancy',
  'a=sendrecv',
].join('\r\n');

describe('T.38 SDP attributes', () => {
  it('parses an offer, ignoring other lines', () => {
    expect(parseT38Attributes(offer)).toEqual({
      version: 3,
      maxBitRate: 14400,
      rateManagement: 'transferredTCF',
      maxBuffer: 2000,
      maxDatagram: 400,
      udpEc: 't38UDPRedundancy',
      fillBitRemoval: true,
      transcodingMMR: false,
      transcodingJBIG: false,
    });
  });

  it('formats what it parses, flags only when set', () => {
    const p = parseT38Attributes(offer);
    expect(formatT38Attributes(p)).toEqual([
      'a=T38FaxVersion:3',
      'a=T38MaxBitRate:14400',
      'a=T38FaxFillBitRemoval',
      'a=T38FaxRateManagement:transferredTCF',
      'a=T38FaxMaxBuffer:2000',
      'a=T38FaxMaxDatagram:400',
      'a=T38FaxUdpEC:t38UDPRedundancy',
    ]);
    expect(parseT38Attributes(formatT38Attributes(p))).toEqual(p);
  });

  it('takes names in any case, the T38FaxMaxBitRate misspelling, flags with values, and the 2010 additions', () => {
    const p = parseT38Attributes([
      'a=t38faxversion:0',
      'a=T38FaxMaxBitRate:9600',
      'a=t38faxratemanagement:LOCALTCF',
      'a=T38FaxTranscodingJBIG:1',
      'a=T38FaxUdpEC:t38UDPFEC',
      'a=T38FaxUdpECDepth:1 3',
      'a=T38FaxUdpFECMaxSpan:5',
    ]);
    expect(p).toMatchObject({ version: 0, maxBitRate: 9600, rateManagement: 'localTCF', transcodingJBIG: true, udpEc: 't38UDPFEC', udpEcDepth: { min: 1, max: 3 }, fecMaxSpan: 5 });
    expect(formatT38Attributes(p)).toContain('a=T38FaxUdpECDepth:1 3');
    expect(parseT38Attributes(formatT38Attributes(p))).toEqual(p);
  });

  it('defaults what is absent (version 0) and answers versions past 3 with 3', () => {
    const p = parseT38Attributes('');
    expect(p.version).toBe(0);
    expect(p.udpEc).toBeUndefined();
    expect(p.rateManagement).toBe('transferredTCF');
    expect(parseT38Attributes('a=T38FaxVersion:4').version).toBe(3);
  });

  it.each([
    'a=T38FaxVersion:x',
    'a=T38MaxBitRate:',
    'a=T38FaxRateManagement:someTCF',
    'a=T38FaxUdpEC:t38UDPMagic',
    'a=T38FaxMaxDatagram:0',
    'a=T38FaxFillBitRemoval:maybe',
    'a=T38FaxUdpECDepth:3 1',
  ])('refuses %s', (line) => {
    expect(() => parseT38Attributes(line)).toThrow(T38Error);
  });

  it('refuses to format values out of range', () => {
    expect(() => formatT38Attributes({ ...DEFAULT_T38_PARAMS, maxBitRate: 1234 })).toThrow(T38Error);
    expect(() => formatT38Attributes({ ...DEFAULT_T38_PARAMS, maxDatagram: 70000 })).toThrow(T38Error);
  });
});

describe('answerT38', () => {
  const local: T38SessionParams = { ...DEFAULT_T38_PARAMS, version: 0, maxBitRate: 14400, udpEc: 't38UDPRedundancy', maxDatagram: 400, maxBuffer: 1800 };

  it('steps down version, rate and error correction, keeps the offered rate management', () => {
    const a = answerT38({ ...parseT38Attributes(offer), udpEc: 't38UDPFEC', maxBitRate: 9600, rateManagement: 'localTCF' }, local);
    expect(a).toEqual({
      version: 0, maxBitRate: 9600, rateManagement: 'localTCF', udpEc: 't38UDPRedundancy',
      fillBitRemoval: false, transcodingMMR: false, transcodingJBIG: false, maxDatagram: 400, maxBuffer: 1800,
    });
    expect(answerT38({ ...parseT38Attributes(offer), udpEc: undefined }, local).udpEc).toBe('t38UDPNoEC');
  });

  it('maps T38FaxUdpEC to the sender error correction', () => {
    expect(errorCorrectionFor('t38UDPRedundancy')).toEqual({ scheme: 'redundancy', depth: 3 });
    expect(errorCorrectionFor('t38UDPFEC', { fecSpan: 2, fecEntries: 4 })).toEqual({ scheme: 'fec', span: 2, entries: 4 });
    expect(errorCorrectionFor(undefined)).toEqual({ scheme: 'none' });
  });
});
