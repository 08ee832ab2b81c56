// The seam between T.30 and the line (docs/architecture.md, house rules: "T.30 knows no transport"). The T.30 machine
// asks its front end for tones, V.21 HDLC frames at 300 bit/s, training (TCF) and image data
// at a high-speed modem rate, or HDLC frames at that rate (ECM); the front end reports what it
// receives. Two front ends implement it: T.38 (IFP over UDPTL, transport/t38) and the audio
// modems (transport/audio). Time never passes inside: the session driving a machine gets its
// clock injected.
//
// Conventions the machine relies on (clarified while building src/t30; nothing was renamed):
// - HDLC frames are octet values as T.30 writes them (DIS = FF 13 80 …): the first bit on the
//   line is bit 0 of each octet. A T.38 front end reverses the bits of each octet to put them
//   in IFP (T.38 sends the first bit as the MSB), and back on receipt.
// - Image data (send-image, TCF, image-data) is the other way round: the first bit on the line
//   is the MSB of each byte — the order the codecs write T.4/T.6 data and T.38 carries it.
//   ECM data travels inside HDLC frames and so follows the HDLC rule (the machine reverses it).
// - While listening for a high-speed mode ('image', 'image-hdlc') a front end still reports
//   V.21 frames it sees (a command repeated because our answer was lost, a PPS after a lost
//   RCP): audio front ends run V.21 beside the fast modem, T.38 gets it for free.
// - 'carrier' reports the signal of the mode being listened to; V.21 frames heard beside a
//   high-speed mode come without carrier events. In 'v21' mode an audio front end reports its
//   V.21 signal detector, which a high-speed signal in the band also raises: after a fast
//   carrier lost mid-page, T.30 holds T2 while the rest of the page is on the line (hold.ts).
// - 'line-signal' is the same detector while listening for a high-speed mode: a signal on the line
//   that is not (or not yet) reported as the mode's carrier — a burst whose training was missed,
//   or a V.21 command. It ends (off) before a carrier of the mode is reported on, and only ever
//   holds T2 (hold.ts). A T.38 front end never sends it: T.38's indicators announce every signal,
//   so a training it "missed" is still reported as carrier.
// - Buffers change hands: a received frame or image chunk is T.30's to keep (ECM keeps FCD
//   payloads as views of it until the block is complete), and the frames of send-hdlc stay
//   T.30's — a front end copies what it needs and never writes to them (ECM sends the same
//   FCD frames again after PPR).

/** High-speed modulations of T.30 (T.30 Table 2, DCS bits 11-14). */
export type Modulation = 'v27ter' | 'v29' | 'v17';

/** A high-speed modem setting: modulation and bit rate (bit/s). */
export interface ModemSpec {
  modulation: Modulation;
  bitRate: 2400 | 4800 | 7200 | 9600 | 12000 | 14400;
  /**
   * V.17 short training (T.30 5.3.2: after the first training at a rate, for pages in the same
   * mode). Set only for V.17: true after TCF trained the rate, false for TCF itself and the
   * first burst after CTC.
   */
  shortTrain?: boolean;
}

/** What the front end should listen for. */
export type RxMode =
  | { kind: 'none' }
  /** V.21 channel 2 HDLC at 300 bit/s (control frames). */
  | { kind: 'v21' }
  /** TCF (non-ECM training check) or non-ECM image data at a high-speed rate. */
  | { kind: 'image'; modem: ModemSpec }
  /** ECM: HDLC frames at a high-speed rate (T.4 Annex A). */
  | { kind: 'image-hdlc'; modem: ModemSpec };

/** Commands from T.30 to its front end. Each one is carried out in order. */
export type FrontEndCommand =
  | { kind: 'set-rx'; mode: RxMode }
  /**
   * Calling tone (1100 Hz) or called station identification / answer tone (2100 Hz). CNG keeps
   * its cadence until the next transmission; the machine does not wait for its tx-done.
   */
  | { kind: 'send-tone'; tone: 'cng' | 'ced' }
  /**
   * HDLC frames (address, control, FCF and info, without the FCS: the front end adds it) over
   * V.21, or at a high-speed rate for ECM. The last frame of the list ends the transmission.
   * The machine writes the control field: 0x13 on the final frame of a V.21 command or
   * response, 0x03 otherwise — ECM FCD and RCP frames are all 0x03 (T.4 Annex A).
   */
  | { kind: 'send-hdlc'; frames: Uint8Array[]; modem: 'v21' | ModemSpec }
  /** TCF: `durationMs` of zeros at the rate (T.30 5.3.6.2.4: 1.5 s ± 10 %). */
  | { kind: 'send-tcf'; modem: ModemSpec; durationMs: number }
  /** A whole non-ECM page, already coded (EOLs, fill, RTC), at the rate. */
  | { kind: 'send-image'; modem: ModemSpec; data: Uint8Array }
  /** Silence before the next transmission (T.30 5.3.2: 75 ms ± 20 ms between signals). */
  | { kind: 'send-silence'; durationMs: number }
  /** The call is over: release the line. */
  | { kind: 'hangup' };

/** What a front end reports to T.30. */
export type FrontEndEvent =
  | { kind: 'tone'; tone: 'cng' | 'ced' }
  /** A received HDLC frame (without FCS); `crcOk` false when its FCS did not check. */
  | { kind: 'hdlc'; frame: Uint8Array; crcOk: boolean }
  /** Carrier/signal of the mode being listened to started or ended (flags seen; sig-end). */
  | { kind: 'carrier'; on: boolean }
  /**
   * Listening for a high-speed mode: a signal on the line that is not its carrier started or
   * ended; `flags` (at its end): HDLC flags were heard in it — a V.21 command, not a page.
   */
  | { kind: 'line-signal'; on: boolean; flags?: boolean }
  /** Bytes of TCF or non-ECM image data, in order. */
  | { kind: 'image-data'; data: Uint8Array }
  /** The high-speed signal ended (end of TCF or of the page data). */
  | { kind: 'image-end' }
  /**
   * Everything handed to the front end so far has been sent (time for the next step): once
   * the transmit queue runs dry, so commands given together may share one tx-done.
   */
  | { kind: 'tx-done' }
  /** The line went away (BYE, socket closed, far end stopped answering). */
  | { kind: 'line-down'; reason: string };

/**
 * A front end: takes commands, reports events. Implementations pace transmissions (real time
 * for real lines, as fast as possible in tests) and deliver events asynchronously.
 */
export interface T30FrontEnd {
  command(cmd: FrontEndCommand): void;
  onEvent(handler: (event: FrontEndEvent) => void): void;
  close(): void;
}
