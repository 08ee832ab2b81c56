import { describe, expect, it } from 'vitest';
import { DEFAULT_T38_PARAMS } from '../t38/session-params.js';
import { parseSessionExpires } from './call.js';
import { digestAnswer, formatAuthorization, parseChallenge } from './digest.js';
import { buildSdp, parseSections, selectMedia } from './sdp.js';
import { sipFailure } from './status.js';

describe('digest (RFC 2617)', () => {
  // RFC 2617 3.5: the example exchange.
  const header =
    'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"';
  it('reads a challenge from header text and from sip\'s parsed form', () => {
    const c = parseChallenge(header)!;
    expect(c).toMatchObject({ realm: 'testrealm@host.com', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', qop: ['auth', 'auth-int'], opaque: '5ccc069c403ebaf9f0171e9517f40e41', stale: false });
    expect(parseChallenge({ scheme: 'Digest', realm: '"r"', nonce: '"n"', stale: 'TRUE' })).toMatchObject({ realm: 'r', nonce: 'n', qop: [], stale: true });
    expect(parseChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseChallenge('Digest realm="x", nonce="y", algorithm=SHA-256')).toBeUndefined();
  });
  it('computes the RFC 2617 3.5 response with qop=auth', () => {
    const a = digestAnswer(parseChallenge(header)!, { username: 'Mufasa', password: 'Circle Of Life' }, { method: 'GET', uri: '/dir/index.html', nc: 1, cnonce: '0a4f113b' });
    expect(a.response).toBe('6629fae49393a05397450978507c4ef1');
    expect(formatAuthorization(a)).toBe(
      'Digest username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", response="6629fae49393a05397450978507c4ef1", algorithm=MD5, qop=auth, nc=00000001, cnonce="0a4f113b", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    );
  });
  it('computes the RFC 2069 form without qop', () => {
    const a = digestAnswer({ realm: 'testrealm@host.com', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', qop: [], stale: false }, { username: 'Mufasa', password: 'Circle Of Life' }, { method: 'GET', uri: '/dir/index.html' });
    // MD5(MD5(A1):nonce:MD5(A2)) — RFC 2069 2.4's example (with RFC 2617's password).
    expect(a.response).toBe('670fd8c2df070c60b045671b8b24ff02');
    expect(a.params.map(([k]) => k)).not.toContain('qop');
  });
});

describe('SDP', () => {
  const t38 = { ...DEFAULT_T38_PARAMS, maxBuffer: 2000, maxDatagram: 400, udpEc: 't38UDPRedundancy' as const };
  it('builds an offer of G.711 and T.38', () => {
    const sdp = buildSdp({ address: '192.0.2.1', sessionId: 7, version: 1, audio: { port: 4000, codecs: ['pcmu', 'pcma'] }, t38: { port: 5000, params: t38 } });
    expect(sdp.split('\r\n')).toEqual([
      'v=0',
      'o=faxstack 7 1 IN IP4 192.0.2.1',
      's=faxstack',
      'c=IN IP4 192.0.2.1',
      't=0 0',
      'm=audio 4000 RTP/AVP 0 8',
      'a=rtpmap:0 PCMU/8000',
      'a=rtpmap:8 PCMA/8000',
      'a=ptime:20',
      'a=sendrecv',
      'm=image 5000 udptl t38',
      'a=T38FaxVersion:0',
      'a=T38MaxBitRate:14400',
      'a=T38FaxRateManagement:transferredTCF',
      'a=T38FaxMaxBuffer:2000',
      'a=T38FaxMaxDatagram:400',
      'a=T38FaxUdpEC:t38UDPRedundancy',
      '',
    ]);
    const sections = parseSections(sdp);
    expect(sections.map((s) => [s.type, s.port, s.host, s.formats])).toEqual([['audio', 4000, '192.0.2.1', ['0', '8']], ['image', 5000, '192.0.2.1', ['t38']]]);
    expect(sections[1]!.t38).toEqual({ ...t38, fillBitRemoval: false, transcodingMMR: false, transcodingJBIG: false });
  });
  it('keeps rejected sections at port 0 in the given order', () => {
    const sdp = buildSdp({ address: '::1', sessionId: 1, version: 2, order: ['audio', 'image'], rejected: ['audio', 'image'], t38: { port: 5000, params: t38 } });
    expect(sdp).toContain('c=IN IP6 ::1');
    expect(sdp.indexOf('m=audio 0 RTP/AVP 0')).toBeLessThan(sdp.indexOf('m=image 5000 udptl t38'));
  });

  const answer = (body: string) => `v=0\r\no=gw 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\n${body}`;
  it('selects T.38 from an answer, with a per-section address and its parameters', () => {
    const sdp = answer('m=audio 0 RTP/AVP 0\r\nm=image 6000 udptl t38\r\nc=IN IP4 10.0.0.9\r\na=T38FaxVersion:1\r\na=T38MaxBitRate:9600\r\na=T38FaxRateManagement:transferredTCF\r\na=T38FaxMaxDatagram:272\r\na=T38FaxUdpEC:t38UDPFEC\r\n');
    const m = selectMedia(sdp, { t38: true, audio: ['pcmu', 'pcma'] });
    expect(m).toMatchObject({ kind: 't38', host: '10.0.0.9', port: 6000, params: { version: 1, maxBitRate: 9600, maxDatagram: 272, udpEc: 't38UDPFEC' } });
  });
  it('selects G.711 (the answer\'s first known codec) when T.38 is inactive or not allowed', () => {
    const sdp = answer('m=audio 4002 RTP/AVP 8 0 101\r\na=rtpmap:101 telephone-event/8000\r\nm=image 0 udptl t38\r\n');
    expect(selectMedia(sdp, { t38: true, audio: ['pcmu', 'pcma'] })).toEqual({ kind: 'audio', host: '10.0.0.1', port: 4002, codec: 'pcma' });
    expect(selectMedia(sdp, { t38: true, audio: ['pcmu'] })).toEqual({ kind: 'audio', host: '10.0.0.1', port: 4002, codec: 'pcmu' });
    expect(selectMedia(sdp, { t38: true, audio: [] })).toBeUndefined();
    const both = answer('m=audio 4002 RTP/AVP 0\r\nm=image 6000 udptl t38\r\n');
    expect(selectMedia(both, { t38: false, audio: ['pcmu'] })?.kind).toBe('audio');
  });
  it('rejects SDP without sections or addresses', () => {
    expect(() => selectMedia('v=0\r\n', { t38: true, audio: [] })).toThrow(/m= sections/);
    expect(() => selectMedia('v=0\r\no=- 1 1 IN IP4 1.2.3.4\r\ns=-\r\nt=0 0\r\nm=image 6000 udptl t38\r\n', { t38: true, audio: [] })).toThrow(/c= address/);
  });
});

describe('SIP status → result code', () => {
  it.each([
    [486, -3101],
    [600, -3101],
    [408, -3102],
    [480, -3102],
    [487, -3102],
    [404, -3104],
    [484, -3104],
    [604, -3104],
    [488, -3104],
    [503, -3104],
    [403, -3104],
  ])('%i → %i', (status, code) => {
    const f = sipFailure(status, 'Reason');
    expect(f.code).toBe(code);
    expect(f.message).toContain(`SIP ${status} Reason`);
  });
});

describe('Session-Expires', () => {
  it.each([
    ['1800', { seconds: 1800 }],
    ['90;refresher=uac', { seconds: 90, refresher: 'uac' }],
    [' 600 ; refresher=UAS', { seconds: 600, refresher: 'uas' }],
    ['x', undefined],
    [undefined, undefined],
  ])('%s', (v, want) => expect(parseSessionExpires(v)).toEqual(want));
});
