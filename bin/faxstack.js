#!/usr/bin/env node
// The `faxstack` command: runs the compiled CLI (npm run build produces dist/).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : err); process.exitCode = 2; },
);
