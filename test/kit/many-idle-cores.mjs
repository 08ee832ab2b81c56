// Preloaded (`node --import`) into a `faxstack render` process: the machine looks like 64 idle
// cores, so the command starts its helper workers whatever the load; the file of each task sent
// to a piscina worker is written to stderr ("task: PATH"), and the file of each worker thread started
// ("worker: PATH", the draw worker's among them). For test/cli/bundle.test.ts.
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import fs from 'node:fs';
import threads, { isMainThread, MessagePort } from 'node:worker_threads';

if (isMainThread) {
  os.availableParallelism = () => 64;
  const readFileSync = fs.readFileSync;
  fs.readFileSync = (path, ...rest) => (path === '/proc/loadavg' ? '0.00 0.00 0.00 1/100 1\n' : readFileSync(path, ...rest));
  const Worker = threads.Worker;
  threads.Worker = class extends Worker {
    constructor(file, opts) {
      if (!opts?.eval) process.stderr.write(`worker: ${file instanceof URL ? file.pathname : file}\n`);
      super(file, opts);
    }
  };
  syncBuiltinESMExports();
  const postMessage = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    if (message && typeof message.filename === 'string' && 'taskId' in message) process.stderr.write(`task: ${message.filename}\n`);
    return postMessage.call(this, message, ...rest);
  };
}
