// The gateway pool: one FaxLine over every configured gateway. It routes each call to the
// gateway for its number (longest prefix, then file order; the next gateway serving the number
// when that one is full), rewrites the number, and never lets a gateway carry more calls than
// its `channels`. Each gateway's own line comes from an injected factory (SIP, or virtual).
// Daemons sharing one store share the channels too (`shared`): a channel is then taken in the
// store before the call and given back after it, so the daemons together never exceed it.
import type { Logger } from '../shared/log.js';
import { ERRORS, outcomeMessage } from '../shared/errors.js';
import type { CallProgress, CallRequest, CallResult, FaxLine } from './line.js';
import { routesFor, type Gateway, type GatewaysConfig, type Route } from './gateways.js';

/** Makes the line that places one gateway's calls. */
export type GatewayLineFactory = (gateway: Gateway) => FaxLine;

export type Reservation = 'reserved' | 'full' | 'no-route';

/**
 * A line with a limited number of channels. The dispatcher reserves a channel for a job as
 * it leases it (so a leased job never waits for one) and leases only while channels are free.
 */
interface SlottedLine extends FaxLine {
  /** Channels free now, over every gateway. */
  freeSlots(): number;
  /**
   * Takes a channel for job `jobId` calling `toNumber`, ahead of its call: `full` when every
   * gateway serving the number is busy, `no-route` when none serves it (the call then fails
   * with -3104 without taking a channel).
   */
  reserve(jobId: number, toNumber: string): Reservation;
  /** Gives back a reservation no call used (idempotent; a call gives its channel back itself). */
  release(jobId: number): void;
  /** Shared channels: updates the view of the channels other processes hold (before leasing). */
  refresh?(): Promise<void>;
  /**
   * Shared channels: takes the reserved channel in the store, right before the call (the job's
   * documents are prepared by then, so no channel is held while rendering); another gateway
   * serving the number when the store finds that one full. False: all are full, the
   * reservation is given back.
   */
  confirm?(jobId: number): Promise<boolean>;
  /** Shared channels: extends the job's hold while its call runs; false when it was lost. */
  renew?(jobId: number): Promise<boolean>;
}

/**
 * Channels shared with other processes (daemons on one store), bound to this process's owner
 * id and hold lease. A hold of a process that dies expires by itself.
 */
export interface SharedChannels {
  /** Takes one of the gateway's `channels` for the job; `busy`: holds of every process afterwards. */
  acquire(gateway: string, channels: number, jobId: number): Promise<{ acquired: boolean; busy: number }>;
  renew(gateway: string, jobId: number): Promise<boolean>;
  release(gateway: string, jobId: number): Promise<void>;
  /** Holds per gateway, every process. */
  busy(): Promise<Record<string, number>>;
}

export function isSlotted(line: FaxLine): line is SlottedLine {
  const l = line as Partial<SlottedLine>;
  return typeof l.freeSlots === 'function' && typeof l.reserve === 'function' && typeof l.release === 'function';
}

interface Waiter {
  routes: Route[];
  grant: (route: Route) => void;
}

interface GatewayPoolOptions {
  logger?: Logger;
  /** Called whenever a channel becomes free (the dispatcher looks for due jobs). */
  onSlotFree?: () => void;
  /** Channels shared with other processes; absent: this process alone uses the gateways. */
  shared?: SharedChannels;
}

export class GatewayPool implements SlottedLine {
  readonly name: string;
  private readonly lines = new Map<string, FaxLine>();
  private readonly inUse = new Map<string, number>();
  /** Channels held per job: reserved ahead of the call, or in a call. */
  private readonly held = new Map<number, Route>();
  private readonly waiters: Waiter[] = [];
  /** Shared channels: holds of other processes per gateway, as of the store's last answer. */
  private readonly others = new Map<string, number>();
  /** Shared channels: jobs whose channel the store has granted, and the number each calls. */
  private readonly confirmed = new Set<number>();
  private readonly numbers = new Map<number, string>();

  constructor(
    readonly config: GatewaysConfig,
    factory: GatewayLineFactory,
    private readonly o: GatewayPoolOptions = {},
  ) {
    this.name = config.line;
    for (const g of config.gateways) {
      this.lines.set(g.name, factory(g));
      this.inUse.set(g.name, 0);
    }
  }

  /** Calls holding a channel of gateway `name` (reserved or in progress). */
  busy(name: string): number {
    return this.inUse.get(name) ?? 0;
  }

  freeSlots(): number {
    return this.config.gateways.reduce((n, g) => n + Math.max(0, g.channels - this.busy(g.name) - (this.others.get(g.name) ?? 0)), 0);
  }

  reserve(jobId: number, toNumber: string): Reservation {
    if (this.held.has(jobId)) return 'reserved';
    const routes = routesFor(this.config.gateways, toNumber);
    if (routes.length === 0) return 'no-route';
    const route = this.firstFree(routes);
    if (!route) return 'full';
    this.take(jobId, route);
    if (this.o.shared) this.numbers.set(jobId, toNumber);
    return 'reserved';
  }

  async confirm(jobId: number): Promise<boolean> {
    const shared = this.o.shared;
    const reserved = this.held.get(jobId);
    // Nothing to take: a process of its own, or no gateway serves the number (the call fails with -3104).
    if (!shared || !reserved || this.confirmed.has(jobId)) return true;
    const routes = routesFor(this.config.gateways, this.numbers.get(jobId) ?? '');
    // The reserved gateway first, then the others for the number that look free here.
    for (const route of [reserved, ...routes.filter((r) => r.gateway.name !== reserved.gateway.name)]) {
      const name = route.gateway.name;
      if (route !== reserved) {
        if (this.busy(name) + (this.others.get(name) ?? 0) >= route.gateway.channels) continue;
        this.take(jobId, route);
      }
      let r: { acquired: boolean; busy: number };
      try {
        r = await shared.acquire(name, route.gateway.channels, jobId);
      } catch (err) {
        this.o.logger?.error({ err, jobId, gateway: name }, 'taking a shared channel failed');
        r = { acquired: false, busy: this.busy(name) - 1 + (this.others.get(name) ?? 0) }; // the view stays as it was
      }
      if (r.acquired) {
        this.confirmed.add(jobId);
        this.others.set(name, Math.max(0, r.busy - this.busy(name)));
        return true;
      }
      this.untake(jobId);
      this.others.set(name, Math.max(0, r.busy - this.busy(name)));
    }
    this.numbers.delete(jobId);
    return false;
  }

  async refresh(): Promise<void> {
    if (!this.o.shared) return;
    const busy = await this.o.shared.busy();
    for (const g of this.config.gateways) this.others.set(g.name, Math.max(0, (busy[g.name] ?? 0) - this.busy(g.name)));
  }

  async renew(jobId: number): Promise<boolean> {
    const route = this.held.get(jobId);
    if (!route || !this.o.shared || !this.confirmed.has(jobId)) return true;
    return this.o.shared.renew(route.gateway.name, jobId);
  }

  release(jobId: number): void {
    const route = this.held.get(jobId);
    if (!route) return;
    this.held.delete(jobId);
    this.numbers.delete(jobId);
    const free = () => {
      this.inUse.set(route.gateway.name, this.busy(route.gateway.name) - 1);
      this.grantWaiters();
      this.o.onSlotFree?.();
    };
    if (!this.o.shared || !this.confirmed.delete(jobId)) return free();
    // The channel counts as busy here until the store has it back (a failed release expires with its lease).
    this.o.shared
      .release(route.gateway.name, jobId)
      .catch((err: unknown) => this.o.logger?.error({ err, jobId, gateway: route.gateway.name }, 'giving back a shared channel failed'))
      .finally(free);
  }

  async call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult> {
    let route = this.held.get(req.jobId);
    if (this.o.shared && !this.confirmed.has(req.jobId)) {
      // Shared channels are taken ahead of the call (the dispatcher reserves and confirms); without that, no waiting across processes.
      const r = this.reserve(req.jobId, req.toNumber);
      if (r === 'no-route') return fail(req, ERRORS.CALL_REJECTED.code, outcomeMessage('CALL_REJECTED', `no gateway serves ${req.toNumber}`), false, {});
      if (r === 'full' || !(await this.confirm(req.jobId))) return fail(req, ERRORS.CALL_DROPPED.code, 'Every channel of the gateways for this number is busy', true, {});
      route = this.held.get(req.jobId)!;
    }
    if (!route) {
      // Not reserved by a dispatcher (library use): wait for a channel of a gateway serving the number.
      const routes = routesFor(this.config.gateways, req.toNumber);
      if (routes.length === 0) {
        return fail(req, ERRORS.CALL_REJECTED.code, outcomeMessage('CALL_REJECTED', `no gateway serves ${req.toNumber}`), false, {});
      }
      const got = await this.acquire(req.jobId, routes, signal);
      if (!got) return fail(req, ERRORS.CALL_DROPPED.code, 'Call aborted while waiting for a free channel', true, {});
      route = got;
    }
    const { gateway, dial } = route;
    const line = this.lines.get(gateway.name)!;
    const log = this.o.logger?.child({ jobId: req.jobId, gateway: gateway.name });
    log?.info({ dial, media: gateway.media, busy: this.busy(gateway.name), channels: gateway.channels }, 'placing call');
    const routeDetail = { gateway: gateway.name, dialed: dial, ...(gateway.media === 'virtual' ? { media: 'virtual' } : {}) };
    try {
      const r = await line.call({ ...req, toNumber: dial, fromNumber: gateway.callerId ?? req.fromNumber }, progress, signal);
      return { ...r, detail: { ...routeDetail, ...r.detail, gateway: gateway.name, dialed: dial } };
    } catch (err) {
      log?.error({ err }, 'gateway line failed');
      return fail(req, ERRORS.INTERNAL.code, outcomeMessage('INTERNAL', `gateway ${gateway.name}: ${err instanceof Error ? err.message : String(err)}`), false, routeDetail);
    } finally {
      this.release(req.jobId);
    }
  }

  /** Closes the gateway lines that hold resources (SIP stacks); call after the calls have ended. */
  async close(): Promise<void> {
    await Promise.all([...this.lines.values()].map((l) => (l as FaxLine & { close?: () => unknown }).close?.()));
  }

  private firstFree(routes: Route[]): Route | undefined {
    return routes.find((r) => this.busy(r.gateway.name) + (this.others.get(r.gateway.name) ?? 0) < r.gateway.channels);
  }

  private take(jobId: number, route: Route): void {
    this.held.set(jobId, route);
    this.inUse.set(route.gateway.name, this.busy(route.gateway.name) + 1);
  }

  /** Gives back a channel taken here only (the store never granted it). */
  private untake(jobId: number): void {
    const route = this.held.get(jobId);
    if (!route) return;
    this.held.delete(jobId);
    this.inUse.set(route.gateway.name, this.busy(route.gateway.name) - 1);
  }

  private acquire(jobId: number, routes: Route[], signal: AbortSignal): Promise<Route | null> {
    const free = this.firstFree(routes);
    if (free) return Promise.resolve((this.take(jobId, free), free));
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        routes,
        grant: (route) => {
          signal.removeEventListener('abort', onAbort);
          this.take(jobId, route);
          resolve(route);
        },
      };
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** First come, first served: each waiter in turn gets a channel if one of its gateways has one. */
  private grantWaiters(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const w = this.waiters[i]!;
      const free = this.firstFree(w.routes);
      if (!free) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      w.grant(free);
    }
  }
}

function fail(req: CallRequest, code: number, message: string, aborted: boolean, detail: Record<string, unknown>): CallResult {
  return { code, message, aborted, lastConfirmedPage: req.firstPage - 1, detail };
}
