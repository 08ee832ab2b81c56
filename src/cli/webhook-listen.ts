// `faxstack webhook-listen`: a small local webhook receiver for trying the service. Prints
// each event and whether its X-Service-Signature matches the secret.
import { createServer } from 'node:http';
import { verifySignature } from '../webhooks/index.js';
import { args, str } from './args.js';

export async function webhookListenCommand(argv: string[]): Promise<number> {
  const { values } = args(argv, {
    port: { type: 'string', default: '9000' },
    host: { type: 'string', default: '127.0.0.1' },
    secret: { type: 'string' },
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1 << 20) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sig = String(req.headers['x-service-signature'] ?? '');
      const check = str(values.secret) ? (verifySignature(body, str(values.secret), sig) ? 'signature OK' : 'SIGNATURE MISMATCH') : 'signature not checked (no --secret)';
      process.stdout.write(`${new Date().toISOString()} ${req.headers['x-service-event'] ?? ''} event ${req.headers['x-service-event-id'] ?? ''} — ${check}\n${body.toString('utf8')}\n\n`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(Number(str(values.port)), str(values.host), r));
  process.stderr.write(`listening for webhooks on http://${str(values.host)}:${str(values.port)}/\n`);
  return new Promise<number>(() => {});
}
