// Gateway channels shared by every daemon on one store: the engine's SharedChannels over the
// store's coordination facet, bound to this process's owner id. A hold lasts `leaseMs` and is
// renewed with the job's lease (the dispatcher's heartbeat), so a daemon that dies gives its
// channels back when its job leases expire.
import type { Clock } from '../shared/clock.js';
import type { SharedChannels } from '../engine/index.js';
import type { CoordinationStore } from '../store/index.js';

export function storeChannels(coordination: CoordinationStore, o: { owner: string; clock: Clock; leaseMs: number }): SharedChannels {
  const { owner, clock, leaseMs } = o;
  return {
    acquire: (gateway, channels, jobId) => {
      const nowMs = clock.now();
      return coordination.acquireChannel({ gateway, channels, owner, jobId, nowMs, untilMs: nowMs + leaseMs });
    },
    renew: (gateway, jobId) => {
      const nowMs = clock.now();
      return coordination.renewChannel({ gateway, owner, jobId, nowMs, untilMs: nowMs + leaseMs });
    },
    release: (gateway, jobId) => coordination.releaseChannel({ gateway, owner, jobId }),
    busy: () => coordination.channelsBusy(clock.now()),
  };
}
