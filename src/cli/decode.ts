// `faxstack decode CAPTURE`: a passive analyzer of a recorded fax call (WAV, raw audio or a
// T.38 pcap). The analysis lives in transport/capture; this is the command around it.
import { UsageError } from './main.js';

export const DECODE_USAGE = `usage: faxstack decode CAPTURE [--format wav|raw|pcap|auto] [--pages-out OUT.tif] [--json]
                       [--channels 1|2] [--law ulaw|alaw|s16le] [--caller HOST:PORT]
`;

export async function decodeCommand(argv: string[]): Promise<number> {
  void argv;
  throw new UsageError(`decode is not implemented yet\n${DECODE_USAGE}`);
}
