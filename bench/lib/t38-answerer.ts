// The far end of bench/daemon.ts, run as its own process (fork): a SIP UAS on 127.0.0.1 that
// answers every INVITE offering T.38 with 200 OK (T.38 at once) and receives the fax with our
// own T.30 answerer over a T38FrontEnd on UDP in real-time pacing; and, for the bare-engine
// runs, raw UDPTL listeners (no SIP) running the same receiver. It reports each finished
// call and, when asked, its own CPU time. Only committed public APIs of src/ are used.
import { SystemClock } from '../../src/shared/clock.js';
import { receiveOverFrontEnd } from '../../src/engine/t30-call.js';
import { DEFAULT_T38_PARAMS, T38FrontEnd, frontEndOptionsFor, openUdpTransport, type T38SessionParams } from '../../src/transport/t38/index.js';
import { buildSdp, createSipStack, selectMedia, type SipMessage } from '../../src/transport/sip/index.js';

/** Messages from the bench to this process. */
export type AnswererRequest = { kind: 'listen'; calls: number } | { kind: 'cpu' } | { kind: 'quit' };
/** Messages from this process to the bench. */
export type AnswererReport =
  | { kind: 'ready'; sipPort: number }
  | { kind: 'listening'; ports: number[] }
  | { kind: 'call'; code: number; pages: number; durationMs: number; message: string }
  | { kind: 'cpu'; userMs: number; systemMs: number };

const OUR_T38: T38SessionParams = { ...DEFAULT_T38_PARAMS, maxBuffer: 2000, maxDatagram: 400, udpEc: 't38UDPRedundancy' };
const clock = new SystemClock();
const report = (m: AnswererReport) => process.send!(m);

/** One fax received on a UDPTL socket (the far end given, or learnt from its first datagram). */
async function receive(udp: Awaited<ReturnType<typeof openUdpTransport>>, remote: T38SessionParams): Promise<void> {
  const started = clock.now();
  const fe = new T38FrontEnd({ transport: udp, clock, pacing: 'realtime', ...frontEndOptionsFor(remote) });
  try {
    const fax = await receiveOverFrontEnd(fe, clock, { ident: '+15550009999', ecm: true });
    report({ kind: 'call', code: fax.result.code, pages: fax.tiff?.pageCount ?? 0, durationMs: clock.now() - started, message: fax.result.message });
  } catch (err) {
    report({ kind: 'call', code: -3199, pages: 0, durationMs: clock.now() - started, message: String(err) });
  } finally {
    udp.close();
  }
}

async function main(): Promise<void> {
  const stack = await createSipStack({ transport: 'udp', bindHost: '127.0.0.1', publicAddress: '127.0.0.1' });
  let session = 1;
  stack.onRequest((req: SipMessage) => {
    if (req.method !== 'INVITE') return stack.respond(req, 481, 'Call/Transaction Does Not Exist');
    const media = selectMedia(req.content ?? '', { t38: true, audio: [] });
    if (!media || media.kind !== 't38') return stack.respond(req, 488, 'Not Acceptable Here');
    const callId = req.headers['call-id']!;
    void openUdpTransport({ bindHost: '127.0.0.1', remoteHost: media.host, remotePort: media.port }).then((udp) => {
      stack.bindCallId(callId, (r) => {
        if (r.method === 'BYE') {
          stack.respond(r, 200, 'OK');
          stack.unbindCallId(callId);
        } else if (r.method === 'INVITE' || r.method === 'UPDATE') {
          stack.respond(r, 200, 'OK'); // a session refresh: nothing changes
        }
      });
      const sdp = buildSdp({ address: '127.0.0.1', sessionId: session++, version: 1, t38: { port: udp.local.port, params: OUR_T38 } });
      stack.respond(req, 200, 'OK', { headers: { contact: [{ uri: `sip:peer@127.0.0.1:${stack.port}` }], 'content-type': 'application/sdp' }, content: sdp });
      void receive(udp, media.params);
    }, () => stack.respond(req, 500, 'No UDPTL port'));
  });
  process.on('message', (m: AnswererRequest) => {
    if (m.kind === 'cpu') {
      const u = process.cpuUsage();
      report({ kind: 'cpu', userMs: u.user / 1000, systemMs: u.system / 1000 });
    } else if (m.kind === 'listen') {
      void Promise.all(Array.from({ length: m.calls }, () => openUdpTransport({ bindHost: '127.0.0.1' }))).then((socks) => {
        report({ kind: 'listening', ports: socks.map((s) => s.local.port) });
        for (const s of socks) void receive(s, OUR_T38);
      });
    } else if (m.kind === 'quit') {
      stack.close();
      process.exit(0);
    }
  });
  report({ kind: 'ready', sipPort: stack.port });
}

void main();
