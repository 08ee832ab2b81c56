/*
 * libspandsp's V.17 modem as the anchor of bench/dsp-v17.ts, and as the far end of its
 * interworking check. Data is ITU-T O.150 2^11-1 (x^11 + x^9 + 1, from all ones), the same
 * sequence as native-free-dsp's PrbsGenerator('prbs11').
 *
 *   v17_bench speed MS                  samples/s of v17_tx and v17_rx at each rate, each run for
 *                                       about MS ms over 10 s of audio in 160-sample buffers
 *   v17_bench ber RATE BITS SNR...      spandsp TX -> awgn -> spandsp RX at -42 dBm0 (the level of
 *                                       spandsp's v17_tests), noise SNR dB below it
 *   v17_bench tx RATE BITS              spandsp TX audio (s16le, 8 kHz) on stdout, BITS of data
 *   v17_bench rx RATE [BITS]            s16le on stdin into spandsp RX; prints the status events
 *                                       and "result BITS ERRORS" over the first BITS delivered bits
 *                                       (all if not given), counted once the checker has locked
 *
 *   cc -O2 -o v17_bench v17_bench.c $(pkg-config --cflags --libs spandsp) -lm
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <spandsp.h>

#define BLOCK 160
#define AUDIO_SAMPLES (10 * 8000)

/* ------------------------------------------------------------------ O.150 2^11-1 source */

typedef struct {
    int reg;
    long sent;
    long limit; /* bits to send, or -1 for endless */
} prbs_t;

static int prbs_next(int *reg)
{
    int b = ((*reg >> 10) ^ (*reg >> 8)) & 1;
    *reg = ((*reg << 1) | b) & 0x7FF;
    return b;
}

static int prbs_get_bit(void *user_data)
{
    prbs_t *p = (prbs_t *) user_data;
    if (p->limit >= 0 && p->sent >= p->limit)
        return SIG_STATUS_END_OF_DATA;
    p->sent++;
    return prbs_next(&p->reg);
}

/* ----------------------------------------------- self-synchronising checker (as BerTester) */

typedef struct {
    int reg;
    int run;
    int locked;
    long bits;
    long errors;
    long limit; /* compare at most this many delivered bits (-1: all) */
    long delivered;
    int trained;
    int verbose;
} checker_t;

static void checker_put(checker_t *c, int bit)
{
    int predicted = ((c->reg >> 10) ^ (c->reg >> 8)) & 1;
    if (!c->locked) {
        c->reg = ((c->reg << 1) | bit) & 0x7FF;
        c->run = (bit == predicted && c->reg != 0) ? c->run + 1 : 0;
        if (c->run >= 30)
            c->locked = 1;
        return;
    }
    c->reg = ((c->reg << 1) | predicted) & 0x7FF;
    c->bits++;
    if (bit != predicted)
        c->errors++;
}

static void checker_put_bit(void *user_data, int bit)
{
    checker_t *c = (checker_t *) user_data;
    if (bit < 0) {
        /* spandsp reports status through put_bit when no status handler is set */
        if (bit == SIG_STATUS_TRAINING_SUCCEEDED)
            c->trained = 1;
        if (c->verbose)
            printf("status %s\n", signal_status_to_str(bit));
        return;
    }
    if (c->limit >= 0 && c->delivered >= c->limit)
        return;
    c->delivered++;
    checker_put(c, bit & 1);
}

static void null_put_bit(void *user_data, int bit)
{
    (void) user_data;
    (void) bit;
}

/* ---------------------------------------------------------------------------- speed */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int16_t audio[AUDIO_SAMPLES];
static int16_t scratch[BLOCK];

static void speed(int ms)
{
    static const int rates[] = { 14400, 12000, 9600, 7200 };
    for (int k = 0; k < 4; k++) {
        int r = rates[k];
        prbs_t p = { 0x7FF, 0, -1 };
        v17_tx_state_t *tx = v17_tx_init(NULL, r, 0, prbs_get_bit, &p);
        v17_tx_power(tx, -14.0f);
        /* TX: best of 3 rounds of ms/3 */
        double best = 0;
        for (int round = 0; round < 3; round++) {
            long done = 0;
            double t0 = now(), t;
            do {
                v17_tx_restart(tx, r, 0, 0);
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v17_tx(tx, scratch, BLOCK);
                done += AUDIO_SAMPLES;
                t = now() - t0;
            } while (t < ms / 3000.0);
            if (done / t > best)
                best = done / t;
        }
        printf("speed v17-tx-%d samples %.0f\n", r, best);
        /* RX on 10 s of the transmitter's own audio: training, then data */
        v17_tx_restart(tx, r, 0, 0);
        v17_tx(tx, audio, AUDIO_SAMPLES);
        v17_rx_state_t *rx = v17_rx_init(NULL, r, null_put_bit, NULL);
        best = 0;
        for (int round = 0; round < 3; round++) {
            long done = 0;
            double t0 = now(), t;
            do {
                v17_rx_restart(rx, r, 0);
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v17_rx(rx, audio + i, BLOCK);
                done += AUDIO_SAMPLES;
                t = now() - t0;
            } while (t < ms / 3000.0);
            if (done / t > best)
                best = done / t;
        }
        printf("speed v17-rx-%d samples %.0f\n", r, best);
        v17_tx_free(tx);
        v17_rx_free(rx);
    }
}

/* ------------------------------------------------------------------------------ BER */

static void ber(int rate, long bits, int nsnr, char **snrs)
{
    for (int k = 0; k < nsnr; k++) {
        float snr = (float) atof(snrs[k]);
        prbs_t p = { 0x7FF, 0, bits };
        checker_t c;
        memset(&c, 0, sizeof(c));
        c.limit = bits;
        v17_tx_state_t *tx = v17_tx_init(NULL, rate, 0, prbs_get_bit, &p);
        v17_tx_power(tx, -42.0f);
        v17_rx_state_t *rx = v17_rx_init(NULL, rate, checker_put_bit, &c);
        awgn_state_t *noise = awgn_init_dbm0(NULL, 1234567, -42.0f - snr);
        int16_t amp[BLOCK];
        int quiet = 0;
        for (;;) {
            int n = v17_tx(tx, amp, BLOCK);
            if (n < BLOCK) {
                memset(amp + n, 0, sizeof(int16_t) * (BLOCK - n));
                quiet++;
            }
            for (int i = 0; i < BLOCK; i++) {
                int v = amp[i] + awgn(noise);
                amp[i] = (int16_t) (v > 32767 ? 32767 : v < -32768 ? -32768 : v);
            }
            v17_rx(rx, amp, BLOCK);
            if (quiet > 20)
                break;
        }
        printf("ber %d %g %ld %ld %d\n", rate, snr, c.bits, c.errors, c.trained);
        v17_tx_free(tx);
        v17_rx_free(rx);
        awgn_free(noise);
    }
}

/* ------------------------------------------------------------------------ interwork */

static int tx_audio(int rate, long bits)
{
    prbs_t p = { 0x7FF, 0, bits };
    v17_tx_state_t *tx = v17_tx_init(NULL, rate, 0, prbs_get_bit, &p);
    v17_tx_power(tx, -14.0f);
    int16_t amp[BLOCK];
    int n;
    do {
        n = v17_tx(tx, amp, BLOCK);
        if (n > 0 && fwrite(amp, sizeof(int16_t), n, stdout) != (size_t) n)
            return 1;
    } while (n == BLOCK);
    v17_tx_free(tx);
    return 0;
}

static int rx_audio(int rate, long limit)
{
    checker_t c;
    memset(&c, 0, sizeof(c));
    c.limit = limit;
    c.verbose = 1;
    v17_rx_state_t *rx = v17_rx_init(NULL, rate, checker_put_bit, &c);
    int16_t amp[BLOCK];
    size_t n;
    while ((n = fread(amp, sizeof(int16_t), BLOCK, stdin)) > 0)
        v17_rx(rx, amp, (int) n);
    printf("result %ld %ld\n", c.bits, c.errors);
    v17_rx_free(rx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "speed") == 0) {
        speed(atoi(argv[2]));
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "ber") == 0) {
        ber(atoi(argv[2]), atol(argv[3]), argc - 4, argv + 4);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "tx") == 0)
        return tx_audio(atoi(argv[2]), atol(argv[3]));
    if (argc >= 3 && strcmp(argv[1], "rx") == 0)
        return rx_audio(atoi(argv[2]), argc >= 4 ? atol(argv[3]) : -1);
    fprintf(stderr, "usage: v17_bench speed MS | ber RATE BITS SNR... | tx RATE BITS | rx RATE [BITS]\n");
    return 2;
}
