// Progress of long work on a terminal: one line on stderr, rewritten in place (pages rendered,
// call phase, negotiated mode, page n of N). Nothing with --json or when stderr is not a TTY,
// so scripts and logs see only the result.
import type { FaxCallEvent } from '../engine/index.js';

export interface Progress {
  say(text: string): void;
  event(e: FaxCallEvent): void;
  /** Ends the line (before the result is printed). */
  done(): void;
}

export function progressLine(json: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (json || !stream.isTTY) return { say: () => {}, event: () => {}, done: () => {} };
  let shown = false;
  const say = (text: string) => {
    stream.write(`\r\x1b[K${text}`);
    shown = true;
  };
  return {
    say,
    event: (e) => say(describe(e)),
    done: () => {
      if (shown) stream.write('\n');
      shown = false;
    },
  };
}

export function describe(e: FaxCallEvent): string {
  switch (e.type) {
    case 'phase':
      return { dialing: 'calling…', transmitting: 'sending pages…', waiting: 'waiting for a call…', receiving: 'receiving pages…' }[e.phase];
    case 'negotiated':
      return `${e.mode.modulation} at ${e.mode.bitRate} bit/s, ${e.mode.compression}${e.mode.ecm ? ', ECM' : ''}, ${e.mode.xDpi}×${e.mode.yDpi} dpi`;
    case 'page':
      return e.pagesTotal === null ? `page ${e.page} received` : `page ${e.page} of ${e.pagesTotal} confirmed`;
  }
}
