// The page coder's worker (page-coder.ts): codes the 1-bit pages a one-shot render's calling
// thread draws, stamps and lends it, and moves each page's code and bitmap back. No PDFium, no
// piscina: the codecs only, so it is up before the calling thread's second page.

import { parentPort } from 'node:worker_threads';
import { encodePage } from './encode-worker.js';
import type { CodeRequest, CodeReply } from './page-coder.js';

const port = parentPort;
if (!port) throw new Error('code-worker.ts runs as a worker thread (page-coder.ts starts it)');
port.on('message', (m: CodeRequest) => {
  let reply: CodeReply;
  try {
    const code = encodePage({ width: m.width, height: m.height, stride: m.stride, data: m.data }, m.settings);
    // Move only a buffer the code owns alone.
    const strip = code.byteOffset === 0 && code.byteLength === code.buffer.byteLength ? code : code.slice();
    reply = { id: m.id, strip, data: m.data };
    port.postMessage(reply, [strip.buffer as ArrayBuffer, m.data.buffer as ArrayBuffer]);
  } catch (err) {
    reply = { id: m.id, data: m.data, error: err instanceof Error ? err.message : String(err) };
    port.postMessage(reply, [m.data.buffer as ArrayBuffer]);
  }
});
