// The session shell: progress in order, the result promise, abort, failures of the things it
// drives (front end, page source), re-entrant front ends, SUB/SID and RNR over a whole call.
import { describe, expect, it } from 'vitest';
import { FakeFrontEnd } from '../../test/conformance/harness.js';
import { tsb } from '../../test/conformance/tsb85.js';
import { runLoopbackCall } from '../../test/helpers/t30-loopback.js';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import { ManualClock } from '../shared/clock.js';
import type { FrontEndCommand, FrontEndEvent } from './front-end.js';
import { T30Session, type T30Progress } from './session.js';
import type { T30Config } from './types.js';

const PAGE = textPage(1728, 60, 4);
const callerCfg: T30Config = { role: 'caller', source: { count: 1, get: () => PAGE } };
const hdlc = (f: string): FrontEndEvent => ({ kind: 'hdlc', frame: tsb(f), crcOk: true });

describe('T30Session', () => {
  it('reports progress in order and settles its result once', async () => {
    const call = await runLoopbackCall({ source: { count: 2, get: () => PAGE } });
    const kinds = call.log.filter((e) => e.side === 'caller' && e.p.kind !== 'frame' && e.p.kind !== 'state').map((e) => e.p.kind);
    expect(kinds).toEqual(['negotiated', 'page-confirmed', 'page-confirmed', 'done']);
    const states = call.log.flatMap((e) => (e.side === 'caller' && e.p.kind === 'state' ? [e.p.state] : []));
    expect(states).toEqual(['T', 'D', 'D_TCF', 'D_POST_TCF', 'IV', 'IV_PPS_Q', 'IV', 'IV_PPS_Q', 'B', 'CALL_FINISHED']);
    const done = call.log.filter((e): e is { side: 'caller'; p: Extract<T30Progress, { kind: 'done' }> } => e.side === 'caller' && e.p.kind === 'done');
    expect(done).toHaveLength(1);
    expect(done[0]!.p.result).toEqual(call.caller);
  });

  it('abort: DCN, then −3108 on both sides', async () => {
    const call = await runLoopbackCall(
      { source: { count: 3, get: () => PAGE } },
      {},
      {
        onLoopback: (_line, s) => {
          let sent = 0;
          const cmd = _line.caller.command.bind(_line.caller);
          _line.caller.command = (c: FrontEndCommand) => {
            cmd(c);
            if (c.kind === 'send-hdlc' && c.modem !== 'v21' && ++sent === 2) queueMicrotask(() => s.caller.abort('job cancelled'));
          };
        },
      },
    );
    expect(call.caller).toMatchObject({ completion: 'T30_ERR_CALLDROPPED', code: -3108, pages: 1 });
    expect(call.caller.message).toMatch(/job cancelled/);
    expect(call.answerer).toMatchObject({ code: -3108 });
  });

  it('a page source that fails ends the call with −3109 after DCN', async () => {
    const call = await runLoopbackCall({
      source: {
        count: 2,
        get: (i) => {
          if (i === 1) throw new Error('page 2 would not render');
          return PAGE;
        },
      },
    });
    expect(call.caller).toMatchObject({ completion: 'T30_ERR_BADTIFF', code: -3109, pages: 1 });
    expect(call.caller.message).toMatch(/page 2 would not render/);
    const wrongWidth = await runLoopbackCall({ source: { count: 1, get: () => textPage(2048, 10) } });
    expect(wrongWidth.caller).toMatchObject({ code: -3109 });
  });

  it('a front end that throws ends the call as an internal error (−3199)', async () => {
    const fe = new FakeFrontEnd();
    fe.command = (c) => {
      if (c.kind === 'send-hdlc') throw new Error('socket closed');
      fe.commands.push(c);
    };
    const session = new T30Session({ config: callerCfg, frontEnd: fe, clock: new ManualClock() });
    session.start();
    fe.emit(hdlc('FF C8 01 00 50 00'));
    expect(await session.result).toMatchObject({ completion: 'T30_ERR_INTERNAL', code: -3199, state: 'D' });
    expect(fe.commands.at(-1)).toEqual({ kind: 'hangup' });
    fe.emit(hdlc('FF C8 21'));
    expect(session.finished).toBe(true);
  });

  it('queues events a front end delivers from inside command()', async () => {
    const fe = new FakeFrontEnd();
    fe.autoTxDone = false;
    const inner = fe.command.bind(fe);
    fe.command = (c) => {
      inner(c);
      if (c.kind !== 'set-rx' && c.kind !== 'send-tone' && c.kind !== 'hangup') fe.emit({ kind: 'tx-done' });
      if (c.kind === 'send-tcf') fe.emit(hdlc('FF C8 21'));
      if (c.kind === 'send-hdlc' && c.frames.some((f) => f[2] === 0x2f)) fe.emit(hdlc('FF C8 31'));
    };
    const session = new T30Session({ config: callerCfg, frontEnd: fe, clock: new ManualClock() });
    session.start();
    fe.emit(hdlc('FF C8 01 00 50 00'));
    expect(await session.result).toMatchObject({ completion: 'T30_ERR_OK', pages: 1 });
    expect(fe.sent()).toEqual(['DCS+', 'EOP+', 'DCN+']);
  });

  it('carries SUB and SID to the receiver when its DIS offers them', async () => {
    const call = await runLoopbackCall({ source: { count: 1, get: () => PAGE }, ident: '5550100', subAddress: '42', senderId: '1234' });
    expect(call.answerer).toMatchObject({ completion: 'T30_ERR_OK', remoteIdent: '5550100', subAddress: '42' });
    // Our DIS does not offer SID (bit 50), so none is sent.
    expect(call.answerer.senderId).toBeUndefined();
  });

  it('a receiver that is not ready holds the transmitter with RNR until it is', async () => {
    const call = await runLoopbackCall(
      { source: { count: 2, get: () => PAGE } },
      {},
      {
        paced: true,
        onLoopback: (line, s) => {
          s.answerer.setReceiverReady(false);
          const cmd = line.answerer.command.bind(line.answerer);
          let rnr = 0;
          line.answerer.command = (c) => {
            cmd(c);
            if (c.kind === 'send-hdlc' && c.frames.some((f) => (f[2]! & 0xfe) === 0xec) && ++rnr === 3) s.answerer.setReceiverReady(true);
          };
        },
      },
    );
    expect(call.caller).toMatchObject({ completion: 'T30_ERR_OK', pages: 2 });
    expect(call.answerer).toMatchObject({ completion: 'T30_ERR_OK', pages: 2 });
    expect(call.log.filter((e) => e.side === 'caller' && e.p.kind === 'frame' && e.p.direction === 'tx' && e.p.name === 'RR')).toHaveLength(3);
  });

  it('validates its configuration up front', () => {
    const fe = new FakeFrontEnd();
    const clock = new ManualClock();
    expect(() => new T30Session({ config: { ...callerCfg, ident: 'x'.repeat(21) } as T30Config, frontEnd: fe, clock })).toThrow(RangeError);
    expect(() => new T30Session({ config: { role: 'caller', source: { count: 0, get: () => PAGE } }, frontEnd: fe, clock })).toThrow(/count/);
    expect(() => new T30Session({ config: { role: 'answerer', codings: [] }, frontEnd: fe, clock })).toThrow(/codings/);
    expect(() => new T30Session({ config: { role: 'answerer', timers: { T2: 0 } }, frontEnd: fe, clock })).toThrow(/T2/);
  });
});
