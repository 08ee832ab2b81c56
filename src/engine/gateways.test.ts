import { describe, expect, it } from 'vitest';
import { GatewayConfigError, parseGateways, parseGatewaysJson, rewriteNumber, routeNumber, routesFor, type Gateway } from './gateways.js';

const gw = (over: Record<string, unknown> = {}) => ({ name: 'trunk', address: 'sip.example.net:5060', channels: 4, ...over });
const file = (over: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({ gateways: [gw(over)], ...top });

describe('gateway configuration', () => {
  it('accepts a full gateway and fills the defaults of a minimal one', () => {
    const c = parseGateways({
      line: 'sip',
      retry: { maxAttempts: 4, retryDelaysMs: [60_000, 300_000] },
      gateways: [
        {
          name: 'us-east', address: '10.0.0.5:5080', transport: 'tcp', username: 'fax', password: 's3cret', channels: 30,
          media: 't38', callerId: '+14155550100', rewrite: [{ match: '^\\+1(\\d{10})$', replace: '1$1' }], prefixes: ['+1'],
        },
        { name: 'v6', address: '[2001:db8::1]:5062', channels: 2, media: 'audio' },
        { name: 'fallback', address: 'gw.example.com', channels: 1 },
        { name: 'lab', media: 'virtual', channels: 2 },
      ],
    });
    expect(c.line).toBe('sip');
    expect(c.retry).toEqual({ maxAttempts: 4, retryDelaysMs: [60_000, 300_000] });
    expect(c.gateways[0]).toMatchObject({ host: '10.0.0.5', port: 5080, transport: 'tcp', channels: 30, media: 't38', callerId: '+14155550100', prefixes: ['+1'] });
    expect(c.gateways[1]).toMatchObject({ host: '2001:db8::1', port: 5062, transport: 'udp', media: 'audio' });
    expect(c.gateways[2]).toMatchObject({ host: 'gw.example.com', port: 5060, media: 't38-or-audio', rewrite: [], prefixes: [] });
    expect(c.gateways[3]).toMatchObject({ name: 'lab', media: 'virtual', host: 'virtual' });
    expect(parseGateways(file()).line).toBe('gateways');
  });

  // Each bad configuration gives an error that names the field and says what is wrong.
  const bad: [string, unknown, string, RegExp][] = [
    ['not an object', [], '(file)', /must be an object, got an array/],
    ['unknown top-level field', { gateways: [gw()], gatewys: [] }, 'gatewys', /unknown field/],
    ['no gateways', {}, 'gateways', /must be an array/],
    ['empty gateways', { gateways: [] }, 'gateways', /at least one/],
    ['line "virtual"', file({}, { line: 'virtual' }), 'line', /built-in line/],
    ['bad line name', file({}, { line: 'a b' }), 'line', /must be a name/],
    ['gateway not an object', { gateways: ['x'] }, 'gateways[0]', /must be an object/],
    ['missing name', { gateways: [{ address: 'a:1', channels: 1 }] }, 'gateways[0].name', /is required/],
    ['bad name', file({ name: '-x' }), 'gateways[0].name', /letters, digits/],
    ['duplicate name', { gateways: [gw(), gw({ name: 'TRUNK' })] }, 'gateways[1].name', /already the name of gateways\[0\]/],
    ['unknown gateway field', file({ chanels: 2 }), 'gateways[0].chanels', /unknown field \(expected name, address/],
    ['missing address', { gateways: [{ name: 'a', channels: 1 }] }, 'gateways[0].address', /is required/],
    ['address with a scheme', file({ address: 'sip:gw:5060' }), 'gateways[0].address', /"host:port"/],
    ['address port 0', file({ address: 'gw:0' }), 'gateways[0].address', /port must be 1-65535/],
    ['address port too big', file({ address: 'gw:70000' }), 'gateways[0].address', /port must be 1-65535/],
    ['address bad host', file({ address: 'g_w:5060' }), 'gateways[0].address', /not a host name/],
    ['bad transport', file({ transport: 'tls' }), 'gateways[0].transport', /"udp" or "tcp", got "tls"/],
    ['missing channels', { gateways: [{ name: 'a', address: 'gw' }] }, 'gateways[0].channels', /is required/],
    ['zero channels', file({ channels: 0 }), 'gateways[0].channels', /integer from 1 to 10000, got 0/],
    ['fractional channels', file({ channels: 1.5 }), 'gateways[0].channels', /got 1.5/],
    ['channels as a string', file({ channels: '4' }), 'gateways[0].channels', /got "4"/],
    ['bad media', file({ media: 'g711' }), 'gateways[0].media', /one of "t38", "audio", "t38-or-audio", "virtual", got "g711"/],
    ['media as a list', file({ media: ['t38'] }), 'gateways[0].media', /must be a string, got an array/],
    ['password without username', file({ password: 'x' }), 'gateways[0].password', /without a username/],
    ['empty username', file({ username: '' }), 'gateways[0].username', /must not be empty/],
    ['bad callerId', file({ callerId: '4155550100' }), 'gateways[0].callerId', /E\.164/],
    ['rewrite not a list', file({ rewrite: { match: 'x' } }), 'gateways[0].rewrite', /must be an array/],
    ['rewrite bad regex', file({ rewrite: [{ match: '(', replace: '' }] }), 'gateways[0].rewrite[0].match', /not a valid regular expression/],
    ['rewrite missing replace', file({ rewrite: [{ match: '^\\+' }] }), 'gateways[0].rewrite[0].replace', /is required/],
    ['rewrite unknown group', file({ rewrite: [{ match: '^\\+(1)', replace: '$2' }] }), 'gateways[0].rewrite[0].replace', /group \$2 but match has 1 group$/],
    ['rewrite unknown field', file({ rewrite: [{ match: 'x', replace: 'y', flags: 'g' }] }), 'gateways[0].rewrite[0].flags', /unknown field/],
    ['empty prefixes', file({ prefixes: [] }), 'gateways[0].prefixes', /serve no number/],
    ['prefix without +', file({ prefixes: ['+1', '44'] }), 'gateways[0].prefixes[1]', /"\+" followed by digits, got "44"/],
    ['retry without maxAttempts', file({}, { retry: {} }), 'retry.maxAttempts', /integer from 1 to 100/],
    ['retry negative delay', file({}, { retry: { maxAttempts: 2, retryDelaysMs: [-1] } }), 'retry.retryDelaysMs[0]', />= 0, got -1/],
  ];
  it.each(bad)('%s', (_what, raw, field, message) => {
    let err: unknown;
    try {
      parseGateways(raw, 'gw.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayConfigError);
    expect((err as GatewayConfigError).field).toBe(field);
    expect((err as GatewayConfigError).message).toMatch(message);
    expect((err as GatewayConfigError).message.startsWith(`gw.json: ${field}: `)).toBe(true);
  });

  it('never echoes a password in an error', () => {
    expect(() => parseGateways(file({ username: 'u', password: 123456 }))).toThrow(/password: must be a string$/);
  });

  it('reports a file that is not JSON as such', () => {
    expect(() => parseGatewaysJson('{ gateways: [', 'gw.json')).toThrow(/^gw\.json: \(file\): not valid JSON/);
  });
});

describe('routing and rewriting', () => {
  const c = parseGateways({
    gateways: [
      { name: 'any', address: 'a', channels: 1 },
      { name: 'nanp', address: 'b', channels: 1, prefixes: ['+1'], rewrite: [{ match: '^\\+1(\\d{10})$', replace: '1$1' }] },
      { name: 'london', address: 'c', channels: 1, prefixes: ['+4420', '+4421'] },
      { name: 'uk', address: 'd', channels: 1, prefixes: ['+44'], rewrite: [{ match: '^\\+44', replace: '0' }, { match: '^\\+', replace: '00' }] },
      { name: 'uk2', address: 'e', channels: 1, prefixes: ['+44'] },
    ],
  });
  const names = (n: string) => routesFor(c.gateways, n).map((r) => `${r.gateway.name}:${r.dial}`);

  it('picks the longest matching prefix, then the order of the file; catch-all gateways last', () => {
    expect(routeNumber(c.gateways, '+14155550123')).toMatchObject({ gateway: { name: 'nanp' }, dial: '14155550123', prefixLength: 2 });
    expect(names('+442071234567')).toEqual(['london:+442071234567', 'uk:02071234567', 'uk2:+442071234567', 'any:+442071234567']);
    expect(names('+441611234567')).toEqual(['uk:01611234567', 'uk2:+441611234567', 'any:+441611234567']);
    expect(names('+33142000000')).toEqual(['any:+33142000000']);
  });

  it('returns null when no gateway serves the number', () => {
    const only = parseGateways({ gateways: [{ name: 'nanp', address: 'b', channels: 1, prefixes: ['+1'] }] });
    expect(routeNumber(only.gateways, '+33142000000')).toBeNull();
  });

  it('applies the first rewrite rule that matches, and none when none matches', () => {
    const uk = c.gateways.find((g) => g.name === 'uk') as Gateway;
    expect(rewriteNumber(uk, '+441611234567')).toBe('01611234567');
    const nanp = c.gateways.find((g) => g.name === 'nanp') as Gateway;
    expect(rewriteNumber(nanp, '+1415555012')).toBe('+1415555012'); // 9 digits: the rule does not match
  });
});
