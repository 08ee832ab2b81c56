import { describe, expect, it } from 'vitest';
import { runLoopbackCall } from '../../test/helpers/t30-loopback.js';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import { firstDifference } from '../codecs/index.js';

describe('smoke', () => {
  it('one page non-ECM', async () => {
    const page = textPage(1728, 200, 1);
    const call = await runLoopbackCall({ ident: '+1 555 0100', ecm: false, source: { count: 1, get: () => page } }, { ident: '+1 555 0199' });
    expect(call.caller.completion).toBe('T30_ERR_OK');
    expect(call.answerer.completion).toBe('T30_ERR_OK');
    expect(call.received).toHaveLength(1);
    expect(firstDifference(call.received[0]!.bitmap!, page)).toBeNull();
  });
  it('one page ECM', async () => {
    const page = textPage(1728, 200, 1);
    const call = await runLoopbackCall({ ident: '+1 555 0100', source: { count: 1, get: () => page } }, { ident: '+1 555 0199' });
    expect(call.caller.completion).toBe('T30_ERR_OK');
    expect(call.answerer.completion).toBe('T30_ERR_OK');
    expect(call.received).toHaveLength(1);
    expect(firstDifference(call.received[0]!.bitmap!, page)).toBeNull();
  });
});
