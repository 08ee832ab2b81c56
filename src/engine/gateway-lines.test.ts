import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { parseGateways } from './gateways.js';
import { defaultGatewayLineFactory, type SipLineConstructor } from './gateway-lines.js';
import { SipLine } from './sip-line.js';

// Compile-time check: the SIP line takes the options the daemon gives it.
const sipLineFits: SipLineConstructor = SipLine;
import { VirtualLine } from './virtual-line.js';

describe('defaultGatewayLineFactory', () => {
  const clock = new ManualClock();
  const [virtualGw, sipGw] = parseGateways({ gateways: [{ name: 'lab', media: 'virtual', channels: 1 }, { name: 'trunk', address: 'gw', channels: 1 }] }).gateways;

  it('gives a virtual gateway the virtual line it is handed', async () => {
    const line = new VirtualLine(clock);
    const factory = await defaultGatewayLineFactory({ clock, logger: silentLogger, virtual: () => line });
    expect(factory(virtualGw!)).toBe(line);
  });

  it('builds the SIP line for a SIP gateway', async () => {
    const factory = await defaultGatewayLineFactory({ clock, logger: silentLogger, virtual: () => new VirtualLine(clock) });
    const line = factory(sipGw!);
    expect(line).toBeInstanceOf(sipLineFits);
    expect(line.name).toBe('trunk');
  });
});
