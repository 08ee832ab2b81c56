// The VIA forms of DESIGN.md's command-line contract (`--via` / `--listen`).
import { UsageError } from './main.js';

export type Via = { kind: 'udptl'; host: string; port: number };

export function parseVia(raw: string, flag: string): Via {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must look like udptl://HOST:PORT, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'udptl:') {
    throw new UsageError(`${flag}: ${url.protocol.replace(/:$/, '')} lines are not available yet; use udptl://HOST:PORT (T.38 over UDPTL)`);
  }
  const port = Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`${flag} needs a host and a port: udptl://HOST:PORT`);
  return { kind: 'udptl', host, port };
}
