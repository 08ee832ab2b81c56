#!/usr/bin/env node
// The `faxstack` command: runs the compiled CLI (npm run build produces dist/).
import { main, UsageError } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => {
    process.stderr.write(`faxstack: ${err instanceof Error ? err.message : err}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
