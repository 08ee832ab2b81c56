// Error correction mode (T.4 Annex A; the frames of T.30 5.3.6): a coded page is cut into blocks
// of up to 256 frames of 256 (or 64) octets, sent as FCD frames closed by RCP, then PPS;
// the receiver answers MCF or PPR with a 256-bit map of the frames to send again.

import { reverseBitsInto } from '../codecs/index.js';
import { buildFrame, Fcf, fcfByte, decodeFcf, isPostMessage, writeFrameHead, type PostMessage } from './fcf.js';

export const FRAMES_PER_BLOCK = 256;
/** RCP is sent three times so one bit error cannot hide the end of the block (T.4 Annex A). */
export const RCP_REPEATS = 3;
/** PPRs for one block before the transmitter must choose CTC or EOR (T.30: after the fourth PPR). */
export const PPR_LIMIT = 4;

/**
 * Cuts a coded page (first bit in the MSB, as the codecs write it) into blocks of FCD frames,
 * numbered within their block, each built once for every burst that sends it: the payload in
 * HDLC order (first bit in bit 0), written straight into the frame. The last payload is padded
 * with zeros to the full frame size, as spandsp does and most receivers expect.
 */
export function ecmBlocks(page: Uint8Array, frameSize: 256 | 64): Uint8Array[][] {
  const count = Math.max(1, Math.ceil(page.length / frameSize));
  const size = FCD_PAYLOAD + frameSize;
  // One buffer for the page's frames: a buffer of its own per frame costs several times a view.
  const all = new ArrayBuffer(count * size);
  // A plain view: pages read from a TIFF are Buffers, whose subarray() costs several times more.
  const src = new Uint8Array(page.buffer, page.byteOffset, page.length);
  const blocks: Uint8Array[][] = [];
  for (let i = 0; i < count; i++) {
    if (i % FRAMES_PER_BLOCK === 0) blocks.push([]);
    const frame = fcdHead(new Uint8Array(all, i * size, size), i % FRAMES_PER_BLOCK);
    reverseBitsInto(src.subarray(i * frameSize, Math.min((i + 1) * frameSize, page.length)), frame, FCD_PAYLOAD);
    blocks[blocks.length - 1]!.push(frame);
  }
  return blocks;
}

/** Where an FCD frame's payload starts: after address, control, FCF and the frame number. */
const FCD_PAYLOAD = 4;

function fcdHead(f: Uint8Array, frameNo: number): Uint8Array {
  writeFrameHead(f, Fcf.FCD, false);
  f[3] = frameNo;
  return f;
}

/** FCD frame: frame number then image data in HDLC order (T.4 Annex A). Not final; no X bit. */
export function fcdFrame(frameNo: number, payload: Uint8Array): Uint8Array {
  const f = fcdHead(new Uint8Array(FCD_PAYLOAD + payload.length), frameNo);
  f.set(payload, FCD_PAYLOAD);
  return f;
}

export function rcpFrame(): Uint8Array {
  return buildFrame(Fcf.RCP, [], false);
}

export interface Pps {
  /** The post-message command of this block (NULL inside a page). */
  fcf2: PostMessage;
  /** Page counter (mod 256), block counter within the page (mod 256), frames in the block/burst. */
  page: number;
  block: number;
  frames: number;
}

/** PPS: FCF2, page, block, frame count − 1 (T.30 5.3.6). A burst of no frames says 0. */
export function ppsFrame(pps: Pps, x: 0 | 1): Uint8Array {
  return buildFrame(fcfByte('PPS', x), [fcfByte(pps.fcf2, x), pps.page & 0xff, pps.block & 0xff, Math.max(0, pps.frames - 1) & 0xff]);
}

export function parsePps(info: Uint8Array): Pps | undefined {
  if (info.length < 4) return undefined;
  const { name } = decodeFcf(info[0]!);
  if (!isPostMessage(name)) return undefined;
  return { fcf2: name, page: info[1]!, block: info[2]!, frames: info[3]! + 1 };
}

/** EOR: FCF2 only (T.30 5.3.6). */
export function eorFrame(fcf2: PostMessage, x: 0 | 1): Uint8Array {
  return buildFrame(fcfByte('EOR', x), [fcfByte(fcf2, x)]);
}

export function parseEor(info: Uint8Array): PostMessage | undefined {
  if (info.length < 1) return undefined;
  const { name } = decodeFcf(info[0]!);
  return isPostMessage(name) ? name : undefined;
}

/** PPR FIF: 32 octets, bit j of octet i set when frame 8i + j must be sent again. */
export function encodePprMap(bad: (frame: number) => boolean): Uint8Array {
  const map = new Uint8Array(FRAMES_PER_BLOCK / 8);
  for (let f = 0; f < FRAMES_PER_BLOCK; f++) if (bad(f)) map[f >>> 3]! |= 1 << (f & 7);
  return map;
}

export function pprWants(map: Uint8Array, frame: number): boolean {
  return ((map[frame >>> 3] ?? 0) & (1 << (frame & 7))) !== 0;
}
