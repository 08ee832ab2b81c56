// The audio port: what a pump (pump.ts) drives and an audio fax front end implements. One block
// of received line audio in, one block of audio to send out, in step (8000 samples/s, 16-bit
// linear), so the front end sees one sample clock for both directions.

/** Something that consumes received audio and produces audio to send, block by block (8000 samples/s, 16-bit linear). */
export interface AudioPort {
  /** Consumes `rx` (audio received from the line) and fills `tx` (same length) with audio to send. */
  process(rx: Int16Array, tx: Int16Array): void;
}
