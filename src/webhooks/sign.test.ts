import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from './sign.js';

// Expected values computed once with `printf '%s' BODY | openssl dgst -sha256 -hmac SECRET`.
const vectors = [
  {
    name: 'RFC-style fox vector',
    body: 'The quick brown fox jumps over the lazy dog',
    secret: 'key',
    hex: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
  },
  {
    name: 'event body',
    body: '{"event":"fax.completed","timestamp":1767225600,"data":{"jobId":1}}',
    secret: 'whsec_test_secret',
    hex: 'ed4f55e729c408b6e8ec26921b0935d0e5e744ed52e96c39814fa707878714c0',
  },
];

describe('signBody', () => {
  it.each(vectors)('$name: known answer', ({ body, secret, hex }) => {
    expect(signBody(body, secret)).toBe(hex);
    expect(signBody(Buffer.from(body, 'utf8'), secret)).toBe(hex);
  });
});

describe('verifySignature', () => {
  const { body, secret, hex } = vectors[1]!;
  const flipped = (hex[0] === '0' ? '1' : '0') + hex.slice(1);
  it.each([
    { name: 'correct signature', sig: hex, ok: true },
    { name: 'upper-case hex', sig: hex.toUpperCase(), ok: true },
    { name: 'one digit changed', sig: flipped, ok: false },
    { name: 'too short', sig: hex.slice(0, 62), ok: false },
    { name: 'too long', sig: hex + '00', ok: false },
    { name: 'empty', sig: '', ok: false },
    { name: 'odd length', sig: hex.slice(0, 63), ok: false },
    { name: 'non-hex of the right length', sig: 'z'.repeat(64), ok: false },
    { name: 'sha256= prefix is not accepted', sig: `sha256=${hex}`, ok: false },
  ])('$name', ({ sig, ok }) => {
    expect(verifySignature(body, secret, sig)).toBe(ok);
  });

  it('refuses another secret and another body', () => {
    expect(verifySignature(body, 'other', hex)).toBe(false);
    expect(verifySignature(body + ' ', secret, hex)).toBe(false);
  });
});
