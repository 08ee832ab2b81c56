import { describe, expect, it } from 'vitest';
import { faxWords } from './fax-words.js';

const job = { status: 'sending', stage: null, code: 0, message: 'Preparing documents', direction: 'sent', transferredPages: 0, totalPages: 3, attempts: 0, maxAttempts: 3 } as const;

describe('a fax in words', () => {
  it.each([
    [{ status: 'delivered', stage: null, code: 0, message: 'Fax delivered', transferredPages: 3 }, 'Delivered', 'ok', '3 pages confirmed'],
    [{ status: 'delivered', stage: null, direction: 'received', code: 0, message: 'Fax received', transferredPages: 1, totalPages: 1 }, 'Received', 'ok', '1 page received'],
    [{ status: 'failed', stage: null, code: -3101, message: 'Line busy' }, 'Failed', 'bad', 'Line busy'],
    [{ status: 'failed', stage: null, code: -3108, message: 'Call dropped', transferredPages: 1 }, 'Failed', 'bad', 'Call dropped (1 of 3 pages went through)'],
    [{ status: 'canceled', stage: null, code: -3005, message: 'Canceled' }, 'Canceled', 'muted', 'Not sent'],
    [{ stage: 'scheduled' }, 'Scheduled', 'wait', 'Waits for its send time'],
    [{ stage: 'queued' }, 'Queued', 'busy', 'Waiting for a free line'],
    [{ stage: 'queued', attempts: 1, code: -3101, message: 'Line busy' }, 'Retrying', 'wait', 'Attempt 1 of 3 failed: Line busy'],
    // While dialing, the stored message may still be the preparation's: the stage speaks.
    [{ stage: 'dialing' }, 'Dialing', 'busy', 'Calling the fax machine'],
    [{ stage: 'transmitting', transferredPages: 2 }, 'Sending', 'busy', '2 of 3 pages confirmed'],
  ] as const)('%o is %s', (over, label, tone, detail) => {
    const j = { ...job, ...over };
    const w = faxWords(j);
    expect([w.label, w.tone, w.detail]).toEqual([label, tone, detail]);
    expect(w.code).toBe(`code ${j.code}: ${j.message}`);
  });
});
