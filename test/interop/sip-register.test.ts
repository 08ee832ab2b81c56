// REGISTER with refresh (issue 6): SipLine registers with SIPp as the registrar — a digest
// challenge, 4 s granted on our Contact, the refresh at half of that with the same credentials,
// the binding removed (Expires: 0) on close — and a wrong password ends in 403, not registered.
// No fax: a few seconds.
import { describe, expect, it } from 'vitest';
import type { RegistrationState } from '../../src/transport/sip/index.js';
import { SipLine } from '../../src/engine/sip-line.js';
import { sippMissing, startSipp } from './sip/harness.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';

const missing = sippMissing();

async function register(password: string, want: number) {
  const sipp = await startSipp('uas-register.xml', { transport: 'udp' });
  const states: RegistrationState[] = [];
  let enough!: () => void;
  const reached = new Promise<void>((resolve) => (enough = resolve));
  const trace: string[] = [];
  const line = new SipLine({
    name: 'registrar', address: `127.0.0.1:${sipp.port}`, transport: 'udp', media: 't38', username: 'fax', password, localAddress: '127.0.0.1',
    trace: (d, t) => trace.push(`${d}: ${t}`),
    register: { expiresS: 60, onState: (s) => (states.push(s), states.length >= want && enough()) },
  });
  try {
    await line.ready();
    await Promise.race([reached, new Promise((_, reject) => setTimeout(() => reject(new Error(`states: ${JSON.stringify(states)}\n${trace.join('\n')}`)), 15_000))]);
  } finally {
    await line.close();
  }
  const exit = await sipp.done;
  sipp.kill();
  return { states, trace, exit };
}

describe.skipIf(!!missing && !INTEROP_REQUIRED)('REGISTER with refresh (SIPp registrar)', () => {
  it('has sipp', () => expect(missing ?? '').toBe(''));

  it('authenticates, refreshes at half the granted interval, unregisters on close', async () => {
    const r = await register('secret', 2);
    expect(r.states, r.trace.join('\n')).toEqual([
      { registered: true, status: 200, reason: 'OK', expiresS: 4 },
      { registered: true, status: 200, reason: 'OK', expiresS: 4 },
    ]);
    const sent = r.trace.filter((t) => t.startsWith('send: REGISTER'));
    expect(sent).toHaveLength(4);
    expect(sent[0]).toMatch(/Expires: 60/);
    expect(sent[1]).toMatch(/Authorization: Digest username="fax".*nc=00000001/);
    expect(sent[2]).toMatch(/nc=00000002/);
    expect(sent[3]).toMatch(/Expires: 0/);
    expect(r.exit.code, r.exit.output).toBe(0);
  }, 30_000);

  it('a wrong password: 403, not registered, nothing to remove on close', async () => {
    const r = await register('wrong', 1);
    expect(r.states).toEqual([{ registered: false, status: 403, reason: 'Forbidden' }]);
    expect(r.trace.filter((t) => t.startsWith('send: REGISTER'))).toHaveLength(2);
  }, 30_000);
});
