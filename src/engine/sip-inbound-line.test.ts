// SipLine answering calls, over loopback sockets without media peers: a SipCall as the gateway
// places the INVITEs. Only the gateway's address is answered; beyond maxCalls → 486.
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../shared/clock.js';
import { DEFAULT_T38_PARAMS } from '../transport/t38/session-params.js';
import { SipCall, createSipStack, type InviteOutcome, type SipStack } from '../transport/sip/index.js';
import type { InboundSummary } from './sip-inbound.js';
import { SipLine } from './sip-line.js';

const clock = new SystemClock();

function dial(gateway: SipStack, port: number): Promise<{ call: SipCall; outcome: InviteOutcome }> {
  const call = new SipCall({
    stack: gateway, clock, target: `sip:+15550002222@127.0.0.1:${port}`, hop: { host: '127.0.0.1', port },
    from: { user: '+15550001111' }, offer: ['t38'], sessionExpiresS: 0,
    media: { address: gateway.publicAddress, t38: { port: 9, params: DEFAULT_T38_PARAMS } },
  });
  return call.place().then((outcome) => ({ call, outcome }));
}

describe('SipLine inbound', () => {
  it('answers the gateway with T.38, refuses other addresses (403) and calls beyond maxCalls (486)', async () => {
    const summaries: InboundSummary[] = [];
    const line = new SipLine({
      name: 'gw', address: '127.0.0.1:5999', transport: 'udp', media: 't38', localAddress: '127.0.0.1',
      inbound: { onReceived: async () => undefined, maxCalls: 1, onCall: (s) => summaries.push(s) },
    });
    const gateway = await createSipStack({ transport: 'udp', bindHost: '127.0.0.1' });
    const stranger = await createSipStack({ transport: 'udp', bindHost: '127.0.0.2', publicAddress: '127.0.0.2' });
    try {
      await line.ready();
      const port = await line.port();
      const first = await dial(gateway, port);
      expect(first.outcome).toMatchObject({ kind: 'answered', status: 200, media: { kind: 't38', host: '127.0.0.1' } });
      const second = await dial(gateway, port);
      expect(second.outcome).toMatchObject({ kind: 'failed', status: 486 });
      const third = await dial(stranger, port);
      expect(third.outcome).toMatchObject({ kind: 'failed', status: 403 });
      expect(summaries.map((s) => [s.sipStatus, s.toNumber])).toEqual([[486, '+15550002222'], [403, '+15550002222']]);
      let ended = '';
      first.call.onEnded((r) => (ended = r));
      await line.close(); // ends the call in progress, which is still reported before close() returns
      expect(ended).toContain('BYE');
      expect(summaries[2]).toMatchObject({ sipStatus: 200, media: 't38', pages: 0 });
      expect(summaries[2]!.message).toContain('the line is closing');
    } finally {
      await line.close();
      gateway.close();
      stranger.close();
    }
  }, 20_000);
});
