import { describe, expect, it } from 'vitest';
import { GatewayConfigError, parseGateways } from './gateways.js';
import { numberOf, qualityOf } from './sip-inbound.js';

describe('inbound SIP calls: numbers and quality', () => {
  it.each([
    ['sip:+15550002222@gw.example.net:5060', '+15550002222'],
    ['sip:15550002222@gw.example.net', '+15550002222'],
    ['sip:%2B4930123456@gw;user=phone', '+4930123456'],
    ['tel:+1-555-000-2222', '+15550002222'],
    ['sip:fax@gw.example.net', 'fax'],
    [undefined, ''],
  ])('%s → %s', (uri, number) => expect(numberOf(uri)).toBe(number));

  it.each([
    [98, 'Low'],
    [196, 'Standard'],
    [391, 'HD'],
    [undefined, 'Low'],
  ] as const)('%s dpi → %s', (dpi, q) => expect(qualityOf(dpi)).toBe(q));
});

describe('gateways file: inbound, reinviteT38, register', () => {
  const gw = (over: Record<string, unknown>) => ({ gateways: [{ name: 'trunk', address: 'sip.example.net:5060', channels: 4, ...over }] });
  const problem = (over: Record<string, unknown>) => {
    try {
      parseGateways(gw(over));
    } catch (e) {
      if (e instanceof GatewayConfigError) return `${e.field}: ${e.problem}`;
      throw e;
    }
    return 'accepted';
  };

  it('accepts them', () => {
    const g = parseGateways(gw({ inbound: { port: 5062 }, reinviteT38: true, register: { expiresS: 600 }, username: 'fax', password: 'x' })).gateways[0]!;
    expect(g).toMatchObject({ inbound: { port: 5062 }, reinviteT38: true, register: { expiresS: 600 } });
    expect(parseGateways(gw({ register: {} })).gateways[0]!.register).toEqual({});
    expect(parseGateways(gw({})).gateways[0]!.inbound).toBeUndefined();
  });

  it.each([
    [{ inbound: { port: 0 } }, 'gateways[0].inbound.port: must be a port from 1 to 65535, got 0'],
    [{ inbound: { port: 5062, host: 'x' } }, 'gateways[0].inbound.host: unknown field (expected port)'],
    [{ inbound: 5062 }, 'gateways[0].inbound: must be an object, got 5062'],
    [{ media: 'virtual', inbound: { port: 5062 } }, 'gateways[0].inbound: a "virtual" gateway receives no calls'],
    [{ reinviteT38: 'yes' }, 'gateways[0].reinviteT38: must be true or false, got "yes"'],
    [{ register: { expiresS: 10 } }, 'gateways[0].register.expiresS: must be whole seconds from 60 to 86400, got 10'],
  ])('%j → %s', (over, msg) => expect(problem(over)).toBe(msg));
});
