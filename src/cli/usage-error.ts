// A usage or input error of the `faxstack` command: bin/faxstack.js prints its message without
// a stack trace and exits with status 2. Its own module so that modules main.ts imports (the
// configuration loader) can throw it without an import cycle.
export class UsageError extends Error {}
