// pcm:// and rtp:// addresses (docs/cli.md command-line contract): what parses, and what each
// malformed address is told.
import { describe, expect, it } from 'vitest';
import { RtpError } from './errors.js';
import { formatAudioUrl, isAudioUrl, parseAudioUrl } from './url.js';

describe('parseAudioUrl', () => {
  it.each([
    ['pcm://127.0.0.1:5000', { kind: 'pcm', host: '127.0.0.1', port: 5000, codec: 'pcm' }],
    ['pcm://gw.example.com:1/', { kind: 'pcm', host: 'gw.example.com', port: 1, codec: 'pcm' }],
    ['rtp://10.0.0.2:4000', { kind: 'rtp', host: '10.0.0.2', port: 4000, codec: 'pcmu' }],
    ['rtp://10.0.0.2:4000?codec=pcma', { kind: 'rtp', host: '10.0.0.2', port: 4000, codec: 'pcma' }],
    ['RTP://h:65535?codec=PCMU', { kind: 'rtp', host: 'h', port: 65535, codec: 'pcmu' }],
    ['rtp://[::1]:4000?codec=pcma', { kind: 'rtp', host: '::1', port: 4000, codec: 'pcma' }],
    ['pcm://[2001:db8::7]:9', { kind: 'pcm', host: '2001:db8::7', port: 9, codec: 'pcm' }],
  ])('%s', (url, expected) => {
    expect(parseAudioUrl(url)).toEqual(expected);
  });

  it.each([
    ['udptl://1.2.3.4:5', /unknown scheme udptl/],
    ['sip:1234@host', /not an address/],
    ['rtp://1.2.3.4', /missing port/],
    ['rtp://1.2.3.4:', /missing port/],
    ['rtp://:4000', /missing host/],
    ['rtp://1.2.3.4:0', /port 0 outside 1..65535/],
    ['rtp://1.2.3.4:65536', /port 65536 outside/],
    ['rtp://1.2.3.4:12ab', /port 12ab/],
    ['rtp://::1:4000', /IPv6 address goes in brackets/],
    ['rtp://[::g]:4000', /not an IPv6 address/],
    ['rtp://[1.2.3.4]:4000', /not an IPv6 address/],
    ['rtp://bad_host:4000', /bad host bad_host/],
    ['rtp://1.2.3.4:4000?codec=g729', /codec g729 is not one of pcmu, pcma/],
    ['rtp://1.2.3.4:4000?codec=pcm', /codec pcm is not one of pcmu, pcma/],
    ['rtp://1.2.3.4:4000?ptime=20', /unknown parameter ptime/],
    ['pcm://1.2.3.4:4000?codec=pcmu', /pcm:\/\/ takes no parameters/],
    ['rtp://1.2.3.4:4000/path', /not an address/],
    ['rtp://user@1.2.3.4:4000', /bad host|not an address/],
  ])('rejects %s', (url, message) => {
    let err: unknown;
    try {
      parseAudioUrl(url);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RtpError);
    expect((err as RtpError).kind).toBe('bad_url');
    expect((err as RtpError).message).toMatch(message);
    expect((err as RtpError).message).toContain(url);
  });
});

describe('formatAudioUrl / isAudioUrl', () => {
  it.each(['pcm://127.0.0.1:5000', 'rtp://[::1]:4000?codec=pcma', 'rtp://gw:4000?codec=pcmu'])('round-trips %s', (url) => {
    expect(formatAudioUrl(parseAudioUrl(url))).toBe(url);
  });

  it('recognizes the schemes', () => {
    expect(isAudioUrl('rtp://x:1')).toBe(true);
    expect(isAudioUrl('PCM://x:1')).toBe(true);
    expect(isAudioUrl('udptl://x:1')).toBe(false);
  });
});
