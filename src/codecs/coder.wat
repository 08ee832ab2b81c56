;; The fax line coder (T.4 4.1 one-dimensional, T.4 4.2.1.3 / T.6 2.2 two-dimensional) as a small
;; WebAssembly kernel: changing elements found with i32.clz on words of a row, lines coded on
;; changing-element lists (runs.ts describes them), code bits packed MSB first into the output.
;; Ours because V8 spends ~250 machine instructions a mode step on the TS coder's checks and
;; spills, and a page's first lines run in cold JIT code (docs/benchmarks.md, "Pages after the
;; first"); no library codes changes lists into fax codes in wasm.
;;
;; Assembled by wabt into coder-wasm.ts (coder-kernel.test.ts checks they agree); driven by
;; coder-kernel.ts, which writes the code tables of t4-tables.ts at 0 when it instantiates us:
;;   0      RUN_PACKED (t4-tables.ts): 2 × 2624 entries (code << 5) | length, white then black
;;   20992  VERTICAL_PACKED: 7 entries, VL3 … VR3
;;   21020  the 2560 make-up code, (code << 5) | length (both colours)
;;   21024  the pass mode's code, 21028 the horizontal mode's, 21032 EOL's, each (code << 5) | length
;; The lists, the rows and the output lie past TABLES_END (coder-kernel.ts lays them out).
;; Output words are stored big-endian; a line never starts without room for its worst case
;; ($lineBound: lineBytesBound in t4-tables.ts, given to "start"): $room grows the memory first.
(module
  (memory (export "memory") 1)
  (global $acc (mut i64) (i64.const 0))   ;; pending bits: the low $bits bits (bits above them are stale)
  (global $bits (mut i32) (i32.const 0))  ;; 0..31 between codes
  (global $pos (mut i32) (i32.const 0))   ;; address of the next output byte
  (global $out (mut i32) (i32.const 0))   ;; where the output began
  (global $width (mut i32) (i32.const 0))
  (global $lineBound (mut i32) (i32.const 0)) ;; bytes a coded line takes at most
  (global $cur (mut i32) (i32.const 0))   ;; the line's changes list
  (global $ref (mut i32) (i32.const 0))   ;; the reference line's
  ;; The page's framing (line-encoder.ts LineCoding): see "frame"
  (global $k (mut i32) (i32.const 0))       ;; -1 MMR, 0 MH, else MR's K factor
  (global $eols (mut i32) (i32.const 0))    ;; T.4 EOLs before the lines (not MMR, not 'rle')
  (global $alignEol (mut i32) (i32.const 0))
  (global $minBits (mut i32) (i32.const 0)) ;; minimum bits a coded line (with its EOL)
  (global $lineStart (mut i32) (i32.const 0))
  (global $y (mut i32) (i32.const 0))       ;; lines begun

  ;; A page `width` pixels wide whose coded lines take at most `lineBound` bytes, lists at `cur`
  ;; and `ref` (the reference line white), output at `out`.
  (func (export "start") (param $width i32) (param $lineBound i32) (param $cur i32) (param $ref i32) (param $out i32)
    (global.set $width (local.get $width))
    (global.set $lineBound (local.get $lineBound))
    (global.set $cur (local.get $cur))
    (global.set $ref (local.get $ref))
    (global.set $out (local.get $out))
    (global.set $pos (local.get $out))
    (global.set $acc (i64.const 0))
    (global.set $bits (i32.const 0))
    (i32.store (local.get $ref) (local.get $width))
    (i32.store offset=4 (local.get $ref) (local.get $width))
    (i32.store offset=8 (local.get $ref) (local.get $width)))

  (func (export "cur") (result i32) (global.get $cur))
  (func (export "ref") (result i32) (global.get $ref))

    ;; Room for `bytes` more output bytes (and the pending word), growing the memory if needed.
  (func $room (param $bytes i32)
    (local $end i32)
    (local.set $end (i32.add (i32.add (global.get $pos) (local.get $bytes)) (i32.const 8)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.lt_s
              (memory.grow (i32.sub (i32.shr_u (i32.add (local.get $end) (i32.const 0xffff)) (i32.const 16)) (memory.size)))
              (i32.const 0))
          (then unreachable)))))

  ;; Appends the `len` (0..25) low bits of `code` (nothing above them), most significant first.
  ;; Without a branch: the 32 bits before the last n - 32 are stored whether or not n >= 32 (when
  ;; not, the store lies past the output, inside $room's margin, and is written over later), and
  ;; $pos moves on only when n >= 32. The branch it replaces (a word out about every 13 codes of a
  ;; text page, at no fixed rhythm: mispredicted) cost 0.2-0.27 ms of a Standard text page's 1.0 ms
  ;; of coding (docs/benchmarks.md, issue 13 session 16).
  (func $emit (param $code i32) (param $len i32)
    (local $n i32)
    (local $word i32)
    (local.set $n (i32.add (global.get $bits) (local.get $len)))
    (global.set $acc (i64.or (i64.shl (global.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
    (local.set $word (i32.wrap_i64 (i64.shr_u (global.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
    ;; big-endian: bytes swapped by two rotations
    (i32.store (global.get $pos)
      (i32.or
        (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
        (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
    (global.set $pos (i32.add (global.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
    (global.set $bits (i32.and (local.get $n) (i32.const 31))))

  ;; $emit for callers outside (EOLs, fill, copied codes), with its room checked.
  (func (export "put") (param $code i32) (param $len i32)
    (call $room (i32.const 4))
    (call $emit (local.get $code) (local.get $len)))

  ;; Zero bits to the next byte boundary.
  (func $align
    (local $r i32)
    (local.set $r (i32.and (global.get $bits) (i32.const 7)))
    (if (local.get $r) (then (call $emit (i32.const 0) (i32.sub (i32.const 8) (local.get $r))))))

  (func (export "align")
    (call $room (i32.const 4))
    (call $align))

  ;; Aligns, writes the pending bytes out and returns the end of the output.
  (func (export "flush") (result i32)
    (call $room (i32.const 8))
    (call $align)
    (block $done
      (loop $bytes
        (br_if $done (i32.eqz (global.get $bits)))
        (global.set $bits (i32.sub (global.get $bits) (i32.const 8)))
        (i32.store8 (global.get $pos) (i32.wrap_i64 (i64.shr_u (global.get $acc) (i64.extend_i32_u (global.get $bits)))))
        (global.set $pos (i32.add (global.get $pos) (i32.const 1)))
        (br $bytes)))
    (global.get $pos))

  ;; One run (T.4 4.1.1: runs past 2623 repeat the 2560 make-up code first, as libtiff does).
  (func $run (param $run i32) (param $black i32)
    (local $e i32)
    (block $done
      (loop $makeup
        (if (i32.lt_u (local.get $run) (i32.const 2624))
          (then
            (local.set $e (i32.load (i32.shl (i32.add (i32.mul (local.get $black) (i32.const 2624)) (local.get $run)) (i32.const 2))))
            (call $emit (i32.shr_u (local.get $e) (i32.const 5)) (i32.and (local.get $e) (i32.const 31)))
            (br $done)))
        (local.set $e (i32.load (i32.const 21020)))
        (call $emit (i32.shr_u (local.get $e) (i32.const 5)) (i32.and (local.get $e) (i32.const 31)))
        (local.set $run (i32.sub (local.get $run) (i32.const 2560)))
        (br $makeup))))

  ;; The changes of the row at `row` into the list at `out`; returns n (sentinels written too).
  ;; Bit 7 of a byte is the row's first pixel: a loaded word is byte-swapped before i32.clz. The
  ;; last word may read up to 3 bytes past the row (coder-kernel.ts leaves them readable), masked.
  (func $changes (param $row i32) (param $out i32) (result i32)
    (local $n i32) (local $color i32) (local $k i32) (local $words i32) (local $x i32) (local $p i32)
    (local $base i32) (local $tail i32) (local $mask i32) (local $v i32)
    (local.set $words (i32.shr_u (global.get $width) (i32.const 5)))
    (block $full
      (loop $word
        ;; words all of the current colour are passed over
        (block $differs
          (loop $same
            (br_if $full (i32.ge_u (local.get $k) (local.get $words)))
            (local.set $v (i32.load (i32.add (local.get $row) (i32.shl (local.get $k) (i32.const 2)))))
            (br_if $differs (i32.ne (local.get $v) (local.get $color)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $same)))
        (local.set $x
          (i32.xor
            (i32.or
              (i32.and (i32.rotl (local.get $v) (i32.const 8)) (i32.const 0x00ff00ff))
              (i32.and (i32.rotr (local.get $v) (i32.const 8)) (i32.const 0xff00ff00)))
            (local.get $color)))
        (local.set $base (i32.shl (local.get $k) (i32.const 5)))
        (loop $bit
          (local.set $p (i32.clz (local.get $x)))
          (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (i32.add (local.get $base) (local.get $p)))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $color (i32.xor (local.get $color) (i32.const -1)))
          ;; the pixels after p against the new colour
          (local.set $x (i32.and (i32.xor (local.get $x) (i32.const -1)) (i32.shr_u (i32.const 0x7fffffff) (local.get $p))))
          (br_if $bit (local.get $x)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $word)))
    (local.set $tail (i32.and (global.get $width) (i32.const 31)))
    (if (local.get $tail)
      (then
        (local.set $mask (i32.shl (i32.const -1) (i32.sub (i32.const 32) (local.get $tail))))
        (local.set $v (i32.load (i32.add (local.get $row) (i32.shl (local.get $words) (i32.const 2)))))
        (local.set $x
          (i32.and
            (i32.xor
              (i32.or
                (i32.and (i32.rotl (local.get $v) (i32.const 8)) (i32.const 0x00ff00ff))
                (i32.and (i32.rotr (local.get $v) (i32.const 8)) (i32.const 0xff00ff00)))
              (local.get $color))
            (local.get $mask)))
        (local.set $base (i32.shl (local.get $words) (i32.const 5)))
        (block $end
          (loop $bit
            (br_if $end (i32.eqz (local.get $x)))
            (local.set $p (i32.clz (local.get $x)))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (i32.add (local.get $base) (local.get $p)))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $x
              (i32.and (i32.and (i32.xor (local.get $x) (i32.const -1)) (i32.shr_u (i32.const 0x7fffffff) (local.get $p))) (local.get $mask)))
            (br $bit)))))
    (local.set $p (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (i32.store (local.get $p) (global.get $width))
    (i32.store offset=4 (local.get $p) (global.get $width))
    (i32.store offset=8 (local.get $p) (global.get $width))
    (local.get $n))

  ;; A line in 1-D coding (T.4 4.1): its runs, white first; a run's code (RUN_PACKED) goes out as
  ;; in $emit, written out with the writer's state in locals, unless the run is past 2623 ($run).
  (func $code1D (param $list i32) (param $n i32)
    (local $i i32) (local $a0 i32) (local $next i32) (local $run i32) (local $code i32) (local $len i32)
    (local $acc i64) (local $bits i32) (local $pos i32) (local $word i32) (local $m i32)
    (local.set $acc (global.get $acc))
    (local.set $bits (global.get $bits))
    (local.set $pos (global.get $pos))
    (loop $runs
      (local.set $next (i32.load (i32.add (local.get $list) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $run (i32.sub (local.get $next) (local.get $a0)))
      (if (i32.lt_u (local.get $run) (i32.const 2624))
        (then
          (local.set $code (i32.load (i32.shl (i32.add (i32.mul (i32.and (local.get $i) (i32.const 1)) (i32.const 2624)) (local.get $run)) (i32.const 2))))
          (local.set $len (i32.and (local.get $code) (i32.const 31)))
          (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
          (local.set $m (i32.add (local.get $bits) (local.get $len)))
          (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
          (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $m) (i32.const 32))))))
          (i32.store (local.get $pos)
            (i32.or
              (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
              (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
          (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $m) (i32.const 5)) (i32.const 2))))
          (local.set $bits (i32.and (local.get $m) (i32.const 31))))
        (else
          (global.set $acc (local.get $acc))
          (global.set $bits (local.get $bits))
          (global.set $pos (local.get $pos))
          (call $run (local.get $run) (i32.and (local.get $i) (i32.const 1)))
          (local.set $acc (global.get $acc))
          (local.set $bits (global.get $bits))
          (local.set $pos (global.get $pos))))
      (local.set $a0 (local.get $next))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $runs (i32.le_u (local.get $i) (local.get $n))))
    (global.set $acc (local.get $acc))
    (global.set $bits (local.get $bits))
    (global.set $pos (local.get $pos)))

  ;; A line in 2-D coding against the reference line: the flow chart of T.4 Figure 7, the modes
  ;; libtiff chooses (tif_fax3.c Fax3Encode2DRow), so pages are byte-identical with its. b1's index follows the modes: the
  ;; parity of ib is the colour at a0 (even entries turn black). The writer's state is kept in
  ;; locals through the line and $emit's steps are written out here (no call per code), the
  ;; horizontal mode's too (a tenth of a text page's modes: through $run and $emit's globals it was
  ;; a tenth of the coding); only a run past 2623 (make-up codes repeated) goes through $run.
  (func $code2D (param $cur i32) (param $ref i32)
    (local $width i32) (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $b1 i32) (local $b2 i32)
    (local $ia i32) (local $ib i32) (local $k i32) (local $len i32) (local $code i32) (local $n i32)
    (local $acc i64) (local $bits i32) (local $pos i32) (local $word i32) (local $r1 i32) (local $r2 i32)
    (local.set $width (global.get $width))
    (local.set $acc (global.get $acc))
    (local.set $bits (global.get $bits))
    (local.set $pos (global.get $pos))
    (block $line
      (loop $mode
        (local.set $a1 (i32.load (i32.add (local.get $cur) (i32.shl (local.get $ia) (i32.const 2)))))
        (local.set $b1 (i32.load (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2)))))
        (if (i32.eq (local.get $a1) (local.get $b1))
          (then
            ;; V0s: the two lists step together; their 1 bits go out at once, 24 at a time
            (local.set $k (i32.const 0))
            (block $stop
              (loop $v0
                (local.set $ia (i32.add (local.get $ia) (i32.const 1)))
                (local.set $ib (i32.add (local.get $ib) (i32.const 1)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br_if $stop (i32.ge_s (local.get $a1) (local.get $width)))
                (local.set $a1 (i32.load (i32.add (local.get $cur) (i32.shl (local.get $ia) (i32.const 2)))))
                (br_if $v0 (i32.eq (local.get $a1) (i32.load (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2))))))))
            (local.set $a0 (i32.load (i32.add (local.get $cur) (i32.shl (i32.sub (local.get $ia) (i32.const 1)) (i32.const 2)))))
            (loop $ones
              (local.set $len (select (local.get $k) (i32.const 24) (i32.lt_u (local.get $k) (i32.const 24))))
              (local.set $code (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1)))
              ;; $emit, written out
              (local.set $n (i32.add (local.get $bits) (local.get $len)))
              (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
              ;; as $emit: the word stored, $pos moved on only when n >= 32
              (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
              (i32.store (local.get $pos)
                (i32.or
                  (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
                  (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
              (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
              (local.set $bits (i32.and (local.get $n) (i32.const 31)))
              (local.set $k (i32.sub (local.get $k) (local.get $len)))
              (br_if $ones (local.get $k)))
            (br_if $line (i32.ge_s (local.get $a0) (local.get $width)))
            (local.set $b1 (i32.load (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2)))))))
        (local.set $b2 (i32.load offset=4 (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2)))))
        (if (i32.lt_s (local.get $b2) (local.get $a1))
          (then
            ;; pass mode; b1 is next the entry of a0's colour past b2
            (local.set $code (i32.load (i32.const 21024)))
            (local.set $len (i32.and (local.get $code) (i32.const 31)))
            (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
            (local.set $a0 (local.get $b2))
            (local.set $ib (i32.add (local.get $ib) (i32.const 2))))
          (else
            (local.set $k (i32.add (i32.sub (local.get $a1) (local.get $b1)) (i32.const 3)))
            (if (i32.le_u (local.get $k) (i32.const 6))
              (then
                ;; vertical mode; the colour turns: b1 is the entry before b1 (VL) or one after it
                (local.set $code (i32.load offset=20992 (i32.shl (local.get $k) (i32.const 2))))
                (local.set $len (i32.and (local.get $code) (i32.const 31)))
                (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
                (local.set $a0 (local.get $a1))
                (local.set $ia (i32.add (local.get $ia) (i32.const 1)))
                (if (i32.and
                      (i32.gt_s (local.get $ib) (i32.const 0))
                      (i32.gt_s (i32.load (i32.sub (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2))) (i32.const 4))) (local.get $a1)))
                  (then (local.set $ib (i32.sub (local.get $ib) (i32.const 1))))
                  (else
                    (if (i32.lt_s (local.get $a1) (local.get $width))
                      (then
                        ;; the first entry past a1, two at a time (one colour)
                        (local.set $ib (i32.add (local.get $ib) (i32.const 1)))
                        (block $found
                          (loop $next
                            (br_if $found (i32.gt_s (i32.load (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2)))) (local.get $a1)))
                            (local.set $ib (i32.add (local.get $ib) (i32.const 2)))
                            (br $next))))))))
              (else
                ;; horizontal mode: a0a1 and a1a2 as runs, through $emit's globals
                (local.set $a2 (i32.load offset=4 (i32.add (local.get $cur) (i32.shl (local.get $ia) (i32.const 2)))))
                (local.set $r1 (i32.sub (local.get $a1) (local.get $a0)))
                (local.set $r2 (i32.sub (local.get $a2) (local.get $a1)))
                (if (i32.and (i32.lt_u (local.get $r1) (i32.const 2624)) (i32.lt_u (local.get $r2) (i32.const 2624)))
                  (then
                    ;; both runs one code each (the code, then its runs' codes from RUN_PACKED), written out
                    (local.set $code (i32.load (i32.const 21028)))
                    (local.set $n (i32.add (local.get $bits) (i32.and (local.get $code) (i32.const 31))))
                    (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (i32.and (local.get $code) (i32.const 31)))) (i64.extend_i32_u (i32.shr_u (local.get $code) (i32.const 5)))))
                    (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
                    (i32.store (local.get $pos)
                      (i32.or
                        (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
                        (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
                    (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
                    (local.set $bits (i32.and (local.get $n) (i32.const 31)))
                    (local.set $code (i32.load (i32.shl (i32.add (i32.mul (i32.and (local.get $ib) (i32.const 1)) (i32.const 2624)) (local.get $r1)) (i32.const 2))))
                    (local.set $len (i32.and (local.get $code) (i32.const 31)))
                    (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
                    (local.set $n (i32.add (local.get $bits) (local.get $len)))
                    (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
                    (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
                    (i32.store (local.get $pos)
                      (i32.or
                        (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
                        (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
                    (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
                    (local.set $bits (i32.and (local.get $n) (i32.const 31)))
                    (local.set $code (i32.load (i32.shl (i32.add (i32.mul (i32.xor (i32.and (local.get $ib) (i32.const 1)) (i32.const 1)) (i32.const 2624)) (local.get $r2)) (i32.const 2))))
                    (local.set $len (i32.and (local.get $code) (i32.const 31)))
                    (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
                    (local.set $n (i32.add (local.get $bits) (local.get $len)))
                    (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
                    (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
                    (i32.store (local.get $pos)
                      (i32.or
                        (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
                        (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
                    (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
                    (local.set $bits (i32.and (local.get $n) (i32.const 31))))
                  (else
                    ;; a run with make-up codes of 2560: through $run and $emit's globals
                    (global.set $acc (local.get $acc))
                    (global.set $bits (local.get $bits))
                    (global.set $pos (local.get $pos))
                    (local.set $code (i32.load (i32.const 21028)))
                    (call $emit (i32.shr_u (local.get $code) (i32.const 5)) (i32.and (local.get $code) (i32.const 31)))
                    (call $run (local.get $r1) (i32.and (local.get $ib) (i32.const 1)))
                    (call $run (local.get $r2) (i32.xor (i32.and (local.get $ib) (i32.const 1)) (i32.const 1)))
                    (local.set $acc (global.get $acc))
                    (local.set $bits (global.get $bits))
                    (local.set $pos (global.get $pos))))
                (local.set $a0 (local.get $a2))
                (local.set $ia (i32.add (local.get $ia) (i32.const 2)))
                (br_if $line (i32.ge_s (local.get $a0) (local.get $width)))
                ;; b1: the first reference entry past a0 from ib on, two at a time (one colour)
                (block $found
                  (loop $next
                    (br_if $found (i32.gt_s (i32.load (i32.add (local.get $ref) (i32.shl (local.get $ib) (i32.const 2)))) (local.get $a0)))
                    (local.set $ib (i32.add (local.get $ib) (i32.const 2)))
                    (br $next)))
                (br $mode)))))
        ;; the pass or vertical code: $emit, written out
        (local.set $n (i32.add (local.get $bits) (local.get $len)))
        (local.set $acc (i64.or (i64.shl (local.get $acc) (i64.extend_i32_u (local.get $len))) (i64.extend_i32_u (local.get $code))))
        ;; as $emit: the word stored, $pos moved on only when n >= 32
        (local.set $word (i32.wrap_i64 (i64.shr_u (local.get $acc) (i64.extend_i32_u (i32.sub (local.get $n) (i32.const 32))))))
        (i32.store (local.get $pos)
          (i32.or
            (i32.and (i32.rotl (local.get $word) (i32.const 8)) (i32.const 0x00ff00ff))
            (i32.and (i32.rotr (local.get $word) (i32.const 8)) (i32.const 0xff00ff00))))
        (local.set $pos (i32.add (local.get $pos) (i32.shl (i32.shr_u (local.get $n) (i32.const 5)) (i32.const 2))))
        (local.set $bits (i32.and (local.get $n) (i32.const 31)))
        (br_if $mode (i32.lt_s (local.get $a0) (local.get $width)))))
    (global.set $acc (local.get $acc))
    (global.set $bits (local.get $bits))
    (global.set $pos (local.get $pos)))

  ;; Codes the current list (n changes): mode 1 in 1-D, 2 in 2-D against the reference line,
  ;; 0 not at all (a line copied as it came); it becomes the reference line.
  (func $code (param $n i32) (param $mode i32)
    (local $t i32)
    (call $room (global.get $lineBound))
    (if (i32.eq (local.get $mode) (i32.const 1)) (then (call $code1D (global.get $cur) (local.get $n))))
    (if (i32.eq (local.get $mode) (i32.const 2)) (then (call $code2D (global.get $cur) (global.get $ref))))
    (local.set $t (global.get $cur))
    (global.set $cur (global.get $ref))
    (global.set $ref (local.get $t)))

  ;; A line whose changes the caller wrote into the list at cur().
  (func (export "line") (param $n i32) (param $mode i32)
    (call $code (local.get $n) (local.get $mode)))

  ;; How the page's lines are framed (T.4 4.1.2–4.1.4, 4.2.1.3; T.6 2.4): k as LineCoding.k;
  ;; eols: an EOL (with MR's tag bit) before each line; alignEol: EOLs end on a byte boundary;
  ;; minBits: a line with its EOL takes at least this many bits (fill before the EOL).
  (func (export "frame") (param $k i32) (param $eols i32) (param $alignEol i32) (param $minBits i32)
    (global.set $k (local.get $k))
    (global.set $eols (local.get $eols))
    (global.set $alignEol (local.get $alignEol))
    (global.set $minBits (local.get $minBits))
    (global.set $y (i32.const 0)))

  ;; `n` zero bits.
  (func $zeros (param $n i32)
    (block $done
      (loop $more
        (br_if $done (i32.le_s (local.get $n) (i32.const 16)))
        (call $emit (i32.const 0) (i32.const 16))
        (local.set $n (i32.sub (local.get $n) (i32.const 16)))
        (br $more)))
    (if (i32.gt_s (local.get $n) (i32.const 0)) (then (call $emit (i32.const 0) (local.get $n)))))

  ;; Bits written since start.
  (func $bitLength (export "bitLength") (result i32)
    (i32.add (i32.shl (i32.sub (global.get $pos) (global.get $out)) (i32.const 3)) (global.get $bits)))

  ;; EOL (+ MR's tag bit), padded first so that the line it ends lasts minBits, then so that the
  ;; EOL ends on a byte boundary (libtiff's Fax3PutEOL does the same alignment).
  (func $eol (param $tag i32) (param $endsLine i32)
    (local $len i32) (local $lineBits i32) (local $r i32) (local $code i32)
    (call $room (i32.add (i32.shr_u (global.get $minBits) (i32.const 3)) (i32.const 16)))
    (local.set $code (i32.load (i32.const 21032)))
    (local.set $len (i32.and (local.get $code) (i32.const 31)))
    (local.set $code (i32.shr_u (local.get $code) (i32.const 5)))
    ;; MR: the tag bit after EOL (T.4 4.2.1.3.3)
    (if (i32.gt_s (global.get $k) (i32.const 0))
      (then
        (local.set $code (i32.or (i32.shl (local.get $code) (i32.const 1)) (local.get $tag)))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))))
    (if (i32.and (local.get $endsLine) (i32.gt_s (global.get $minBits) (i32.const 0)))
      (then
        (local.set $lineBits (i32.add (i32.sub (call $bitLength) (global.get $lineStart)) (local.get $len)))
        (if (i32.lt_s (local.get $lineBits) (global.get $minBits))
          (then (call $zeros (i32.sub (global.get $minBits) (local.get $lineBits)))))))
    (if (global.get $alignEol)
      (then
        (local.set $r (i32.and (call $bitLength) (i32.const 7)))
        (if (i32.ne (local.get $r) (i32.const 4))
          (then (call $zeros (i32.and (i32.sub (i32.const 12) (local.get $r)) (i32.const 7)))))))
    (call $emit (local.get $code) (local.get $len)))

  (func (export "eol") (param $tag i32) (param $endsLine i32)
    (call $eol (local.get $tag) (local.get $endsLine)))

  (func (export "zeros") (param $n i32)
    (call $room (i32.add (i32.shr_u (local.get $n) (i32.const 3)) (i32.const 8)))
    (call $zeros (local.get $n)))

  ;; A line's framing before its codes; returns how it is coded ($code's modes). `coded`: the
  ;; line came 2-D coded against our reference line, and a 2-D line is then copied as it came.
  (func $begin (param $coded i32) (result i32)
    (local $y i32) (local $oneD i32)
    (local.set $y (global.get $y))
    (global.set $y (i32.add (local.get $y) (i32.const 1)))
    (if (i32.lt_s (global.get $k) (i32.const 0))
      (then (return (select (i32.const 0) (i32.const 2) (local.get $coded)))))
    (local.set $oneD (i32.const 1))
    (if (global.get $k) (then (local.set $oneD (i32.eqz (i32.rem_u (local.get $y) (global.get $k))))))
    (if (global.get $eols) (then (call $eol (local.get $oneD) (i32.gt_u (local.get $y) (i32.const 0)))))
    (if (global.get $minBits) (then (global.set $lineStart (call $bitLength))))
    (if (local.get $oneD) (then (return (i32.const 1))))
    (select (i32.const 0) (i32.const 2) (local.get $coded)))

  (func (export "begin") (param $coded i32) (result i32)
    (call $begin (local.get $coded)))

  ;; After a line: 'rle' rows are byte-aligned.
  (func $end
    (if (i32.and (i32.eqz (global.get $eols)) (i32.ge_s (global.get $k) (i32.const 0)))
      (then (call $align))))

  (func (export "end") (call $end))

  ;; `count` rows of `stride` bytes from `rows` on, each a line framed and coded; returns the last
  ;; row's n.
  (func (export "rows") (param $rows i32) (param $stride i32) (param $count i32) (result i32)
    (local $n i32) (local $mode i32)
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $mode (call $begin (i32.const 0)))
        (local.set $n (call $changes (local.get $rows) (global.get $cur)))
        (call $code (local.get $n) (local.get $mode))
        (call $end)
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $row)))
    (local.get $n))
)
