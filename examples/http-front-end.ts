// The job engine behind a tiny node:http front end: POST /fax with a text body sends it as a fax
// (test key: the built-in virtual line) and answers once the fax has finished.
//   npx tsx examples/http-front-end.ts            one request to itself, then exits
//   npx tsx examples/http-front-end.ts --serve    keeps serving on http://127.0.0.1:8090
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFaxEngine, FaxError } from 'faxstack';

const serve = process.argv.includes('--serve');
const engine = await createFaxEngine({ dataDir: mkdtempSync(join(tmpdir(), 'faxstack-example-')) });
const account = await engine.createAccount({ name: 'example', faxNumber: '+14155550100', balance: 10 });
engine.on('progress', (p) => p.pageConfirmed && process.stderr.write(`job ${p.jobId}: page ${p.pageConfirmed} of ${p.totalPages} confirmed\n`));

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url?.split('?')[0] !== '/fax') return void res.writeHead(404).end();
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const to = new URL(req.url, 'http://x').searchParams.get('to') ?? '+14155550123';
  try {
    const { jobIds } = await engine.send(account.testKey, { faxNumber: to, faxData: [{ fileName: 'note.txt', fileData: Buffer.concat(chunks).toString('base64') }] });
    const fax = await engine.waitFor(account.testKey, jobIds[0]!, { signal: AbortSignal.timeout(60_000) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fax));
  } catch (err) {
    const status = err instanceof FaxError && err.kind === 'invalid' ? 400 : 500;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }));
  }
});
await new Promise<void>((resolve) => server.listen(serve ? 8090 : 0, '127.0.0.1', resolve));
const address = server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

if (serve) {
  process.stderr.write(`POST ${url}/fax?to=+14155550123 with a text body; Ctrl-C stops\n`);
  process.once('SIGINT', () => void server.close(() => void engine.close()));
} else {
  const r = await fetch(`${url}/fax?to=%2B14155550123`, { method: 'POST', body: 'Hello from the faxstack job engine.\n' });
  console.log(JSON.stringify(await r.json()));
  server.close();
  await engine.close();
}
