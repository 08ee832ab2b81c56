#!/usr/bin/env node
// The `faxstack` command: runs the compiled CLI (dist/, built by `npm run build` or on `npm pack`).
let cli;
try {
  cli = await import('../dist/src/cli/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/src/cli/main.js')) throw err;
  process.stderr.write('faxstack: not compiled yet (dist/ is missing): run `npm run build` in the faxstack checkout\n');
  process.exit(2);
}
const { main, UsageError } = cli;

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => {
    process.stderr.write(`faxstack: ${err instanceof Error ? err.message : err}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
