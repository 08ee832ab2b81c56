// The one place where a job's money is decided: what its reservation becomes and what it is
// charged when it ends. Both engines (postgres.ts, sqlite.ts) apply the moves returned here with
// their own SQL, inside the transaction that holds the account's row.
import type { JobRecord } from './types.js';

/** One entry to write: `reserve` and `charge` take from the balance, `release` gives back. */
export interface LedgerMove {
  kind: 'reserve' | 'release' | 'charge';
  /** Always positive. */
  amountCents: number;
}

/**
 * What a job holds back from the balance for `pages` pages: their price on a live key, nothing on a
 * test key (test faxes are never charged).
 */
export function reservationCents(job: Pick<JobRecord, 'keyMode' | 'priceCentsPerPage'>, pages: number): number {
  return job.keyMode === 'live' ? pages * job.priceCentsPerPage : 0;
}

/** Moves that bring a job's reservation from `reservedCents` to `wantedCents` (none when equal). */
export function reservationMoves(reservedCents: number, wantedCents: number): LedgerMove[] {
  const diff = wantedCents - reservedCents;
  if (diff > 0) return [{ kind: 'reserve', amountCents: diff }];
  if (diff < 0) return [{ kind: 'release', amountCents: -diff }];
  return [];
}

interface Settlement {
  moves: LedgerMove[];
  /** What the job is charged in the end (its `charged_cents`). */
  chargeCents: number;
}

/**
 * Settles a job that has ended: the reservation comes back whole, then the pages transferred on a
 * live key are charged at the job's price — never more than the account then holds, so the
 * balance cannot go negative. Test keys are never charged. `balanceCents` is the balance before
 * the release.
 */
export function settlement(job: Pick<JobRecord, 'reservedCents' | 'keyMode' | 'priceCentsPerPage'>, transferredPages: number, balanceCents: number): Settlement {
  const moves: LedgerMove[] = [];
  if (job.reservedCents > 0) moves.push({ kind: 'release', amountCents: job.reservedCents });
  const wanted = reservationCents(job, transferredPages);
  const chargeCents = Math.max(0, Math.min(wanted, balanceCents + job.reservedCents));
  if (chargeCents > 0) moves.push({ kind: 'charge', amountCents: chargeCents });
  return { moves, chargeCents };
}
