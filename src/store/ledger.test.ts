import { describe, expect, it } from 'vitest';
import { reservationCents, reservationMoves, settlement } from './ledger.js';

describe('reservationCents', () => {
  it('holds back the pages at their price on a live key, nothing on a test key', () => {
    expect(reservationCents({ keyMode: 'live', priceCentsPerPage: 7 }, 3)).toBe(21);
    expect(reservationCents({ keyMode: 'test', priceCentsPerPage: 7 }, 3)).toBe(0);
  });
});

describe('reservationMoves', () => {
  it.each([
    [0, 14, [{ kind: 'reserve', amountCents: 14 }]],
    [14, 21, [{ kind: 'reserve', amountCents: 7 }]],
    [21, 7, [{ kind: 'release', amountCents: 14 }]],
    [14, 0, [{ kind: 'release', amountCents: 14 }]],
    [14, 14, []],
  ])('reserved %i → wanted %i', (reserved, wanted, moves) => {
    expect(reservationMoves(reserved, wanted)).toEqual(moves);
  });
});

describe('settlement', () => {
  const live = { keyMode: 'live' as const, priceCentsPerPage: 7 };
  it.each([
    // reserved, mode, pages, balance before release → charge, moves
    ['all pages sent, reservation covers it', { ...live, reservedCents: 21 }, 3, 100, 21, [{ kind: 'release', amountCents: 21 }, { kind: 'charge', amountCents: 21 }]],
    ['fewer pages than reserved', { ...live, reservedCents: 21 }, 1, 100, 7, [{ kind: 'release', amountCents: 21 }, { kind: 'charge', amountCents: 7 }]],
    ['nothing sent', { ...live, reservedCents: 21 }, 0, 100, 0, [{ kind: 'release', amountCents: 21 }]],
    ['more pages than reserved, balance covers it', { ...live, reservedCents: 7 }, 3, 100, 21, [{ kind: 'release', amountCents: 7 }, { kind: 'charge', amountCents: 21 }]],
    ['more pages than the account holds: charged what it holds', { ...live, reservedCents: 7 }, 3, 5, 12, [{ kind: 'release', amountCents: 7 }, { kind: 'charge', amountCents: 12 }]],
    ['empty account, nothing reserved', { ...live, reservedCents: 0 }, 2, 0, 0, []],
    ['test key: never charged', { keyMode: 'test' as const, priceCentsPerPage: 7, reservedCents: 0 }, 5, 100, 0, []],
  ])('%s', (_name, job, pages, balance, charge, moves) => {
    const s = settlement(job, pages, balance);
    expect(s.chargeCents).toBe(charge);
    expect(s.moves).toEqual(moves);
    // The balance never goes negative.
    const after = s.moves.reduce((b, m) => b + (m.kind === 'release' ? m.amountCents : -m.amountCents), balance);
    expect(after).toBeGreaterThanOrEqual(0);
  });
});
