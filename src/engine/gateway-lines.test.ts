import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { parseGateways } from './gateways.js';
import { defaultGatewayLineFactory } from './gateway-lines.js';
import { VirtualLine } from './virtual-line.js';

describe('defaultGatewayLineFactory', () => {
  const clock = new ManualClock();
  const [virtualGw, sipGw] = parseGateways({ gateways: [{ name: 'lab', media: 'virtual', channels: 1 }, { name: 'trunk', address: 'gw', channels: 1 }] }).gateways;

  it('gives a virtual gateway the virtual line it is handed', async () => {
    const line = new VirtualLine(clock);
    const factory = await defaultGatewayLineFactory({ clock, logger: silentLogger, virtual: () => line });
    expect(factory(virtualGw!)).toBe(line);
  });

  it('builds the SIP line for a SIP gateway, or says clearly that this build has none', async () => {
    const factory = await defaultGatewayLineFactory({ clock, logger: silentLogger, virtual: () => new VirtualLine(clock) });
    if (existsSync(new URL('./sip-line.ts', import.meta.url))) {
      expect(factory(sipGw!).call).toBeTypeOf('function');
    } else {
      expect(() => factory(sipGw!)).toThrow(/gateway "trunk" media: "t38-or-audio" needs the SIP line/);
    }
  });
});
