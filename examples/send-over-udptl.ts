// Send documents as a fax over T.38 (UDPTL) to a second faxstack instance answering on a local
// port, with progress as events (a one-page fax takes about 13 s, paced as on a real line):
//   npx tsx examples/send-over-udptl.ts letter.txt
import { closeWorkers, listenForFax, sendFax, type FaxCallEvent } from 'faxstack';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: send-over-udptl FILE…');

const show = (who: string) => (e: FaxCallEvent) => {
  const text = e.type === 'phase' ? e.phase : e.type === 'negotiated' ? `${e.mode.modulation} ${e.mode.bitRate} bit/s${e.mode.ecm ? ', ECM' : ''}` : `page ${e.page}${e.pagesTotal ? ` of ${e.pagesTotal}` : ''}`;
  process.stderr.write(`${who}: ${text}\n`);
};

// The answering side: any free port on loopback; stop waiting after a minute.
const listener = await listenForFax({ listen: 'udptl://127.0.0.1:0', ident: 'EXAMPLE RX', signal: AbortSignal.timeout(60_000), onEvent: show('receiver') });
const sent = await sendFax(files, { via: listener.url, ident: '+14155550100', onEvent: show('sender'), signal: AbortSignal.timeout(60_000) });
const received = await listener.result;
console.log(JSON.stringify({ sent, received: { ...received, fax: received.fax && { pages: received.fax.pageCount, pdfBytes: received.fax.pdf().length } } }));
await closeWorkers();
process.exitCode = sent.success && received.success ? 0 : 1;
