/*
 * bench/spandsp/dsp_bench.c — spandsp's side of bench/dsp.ts: the same blocks, driven through
 * libspandsp's public API, timed the same way (20 ms buffers, best of several rounds).
 * bench/dsp.ts compiles it at run time:  cc -O2 dsp_bench.c $(pkg-config --cflags --libs spandsp) -lm
 *
 *   dsp_bench speed MS          for each block: "speed NAME UNITS_PER_SECOND" (samples or bits)
 *   dsp_bench ber BITS SNR...   V.21 ch2 at -13 dBm0 through white noise: "ber SNR BITS ERRORS"
 *   dsp_bench berm v29|v27ter RATE BITS SNR...   V.29 / V.27 ter at -42 dBm0 (spandsp's test
 *                               level): "berm MODEM RATE SNR BITS ERRORS"
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <spandsp.h>

#define BLOCK 160
#define AUDIO_SECONDS 10
#define AUDIO_SAMPLES (AUDIO_SECONDS * 8000)

/* Process CPU time, as the TypeScript side counts it (other jobs on the machine do not count). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A block under test: processes `n` samples (or bits) from/into the shared buffers. */
typedef void (*step_fn)(void *ctx, int16_t *amp, int n);

static int16_t audio_v21[AUDIO_SAMPLES];
static int16_t audio_ced[AUDIO_SAMPLES];
static int16_t audio_busy[AUDIO_SAMPLES];
static int16_t scratch[BLOCK];
static uint8_t codes[BLOCK];
static volatile int sink;

/* Runs `step` over `audio` in BLOCK-sample buffers until `ms` have passed; best rate of 3 rounds. */
static double rate(step_fn step, void *ctx, int16_t *audio, int ms)
{
    double best = 0;
    for (int round = 0; round < 3; round++)
    {
        long done = 0;
        double t0 = now();
        double t;
        do
        {
            for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                step(ctx, audio ? audio + i : scratch, BLOCK);
            done += AUDIO_SAMPLES;
            t = now() - t0;
        }
        while (t * 1000.0 < ms / 3.0);
        if (done / t > best)
            best = done / t;
    }
    return best;
}

/* ---------------------------------------------------------------------------------- blocks */

static void g711_ulaw_enc(void *ctx, int16_t *amp, int n) { g711_encode((g711_state_t *) ctx, codes, amp, n); }
static void g711_ulaw_dec(void *ctx, int16_t *amp, int n) { (void) amp; g711_decode((g711_state_t *) ctx, scratch, codes, n); }

static void pm_step(void *ctx, int16_t *amp, int n)
{
    for (int i = 0; i < n; i++)
        power_meter_update((power_meter_t *) ctx, amp[i]);
    sink = power_meter_current((power_meter_t *) ctx);
}

static void tone_gen_step(void *ctx, int16_t *amp, int n) { (void) amp; tone_gen((tone_gen_state_t *) ctx, scratch, n); }
/* ANSam/ ends after 5 s; start it again then, as our generator never ends in the same test. */
static void mct_tx_step(void *ctx, int16_t *amp, int n)
{
    (void) amp;
    modem_connect_tones_tx_state_t *s = (modem_connect_tones_tx_state_t *) ctx;
    if (modem_connect_tones_tx(s, scratch, n) < n)
        modem_connect_tones_tx_init(s, MODEM_CONNECT_TONES_ANSAM_PR);
}

typedef struct { modem_connect_tones_rx_state_t *cng; modem_connect_tones_rx_state_t *ans; } mct_pair_t;
static void mct_rx_step(void *ctx, int16_t *amp, int n)
{
    mct_pair_t *p = (mct_pair_t *) ctx;
    modem_connect_tones_rx(p->cng, amp, n);
    modem_connect_tones_rx(p->ans, amp, n);
}

static void super_rx_step(void *ctx, int16_t *amp, int n) { super_tone_rx((super_tone_rx_state_t *) ctx, amp, n); }

static void fsk_tx_step(void *ctx, int16_t *amp, int n) { (void) amp; fsk_tx((fsk_tx_state_t *) ctx, scratch, n); }
static void fsk_rx_step(void *ctx, int16_t *amp, int n) { fsk_rx((fsk_rx_state_t *) ctx, amp, n); }

static void awgn_step(void *ctx, int16_t *amp, int n)
{
    for (int i = 0; i < n; i++)
        scratch[i] = saturate(amp[i] + awgn((awgn_state_t *) ctx));
}

/* Bit-level blocks: n bits per call. The framer is kept busy with 32-octet frames. */
static hdlc_tx_state_t *hdlc_tx_now;
static void hdlc_underflow(void *user_data)
{
    static const uint8_t frame[32] = { 0xff, 0x03, 0x40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29 };
    (void) user_data;
    hdlc_tx_frame(hdlc_tx_now, frame, sizeof(frame));
}
static uint8_t hdlc_bits[AUDIO_SAMPLES];
static void hdlc_tx_step(void *ctx, int16_t *amp, int n)
{
    (void) amp;
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += hdlc_tx_get_bit((hdlc_tx_state_t *) ctx);
    sink = acc;
}
static int hdlc_pos = 0;
static void hdlc_rx_step(void *ctx, int16_t *amp, int n)
{
    (void) amp;
    for (int i = 0; i < n; i++)
    {
        hdlc_rx_put_bit((hdlc_rx_state_t *) ctx, hdlc_bits[hdlc_pos]);
        if (++hdlc_pos == AUDIO_SAMPLES)
            hdlc_pos = 0;
    }
}
static void hdlc_frame_sink(void *user_data, const uint8_t *pkt, int len, int ok) { (void) user_data; (void) pkt; sink = len + ok; }

typedef struct { bert_state_t *tx; bert_state_t *rx; } bert_pair_t;
static void bert_step(void *ctx, int16_t *amp, int n)
{
    bert_pair_t *b = (bert_pair_t *) ctx;
    (void) amp;
    for (int i = 0; i < n; i++)
        bert_put_bit(b->rx, bert_get_bit(b->tx));
}

/* Bit source / sink adapters for the modems (drop spandsp's negative status "bits"). */
static int prbs_get_bit(void *user_data) { return bert_get_bit((bert_state_t *) user_data); }
static void null_put_bit(void *user_data, int bit) { (void) user_data; if (bit >= 0) sink = bit; }
static void bert_put_bit_filtered(void *user_data, int bit) { if (bit >= 0) bert_put_bit((bert_state_t *) user_data, bit); }
static void tone_report(void *user_data, int code, int level, int delay) { (void) user_data; sink = code + level + delay; }
static void super_report(void *user_data, int code, int level, int delay) { (void) user_data; sink = code + level + delay; }

/* ----------------------------------------------------------------------------------- audio */

static void make_audio(void)
{
    bert_state_t *prbs = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, 300, 20);
    fsk_tx_state_t *tx = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], prbs_get_bit, prbs);
    fsk_tx_power(tx, -13.0f);
    fsk_tx(tx, audio_v21, AUDIO_SAMPLES);
    fsk_tx_free(tx);

    modem_connect_tones_tx_state_t *ced = modem_connect_tones_tx_init(NULL, MODEM_CONNECT_TONES_ANSAM_PR);
    for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
        if (modem_connect_tones_tx(ced, audio_ced + i, BLOCK) < BLOCK)
            modem_connect_tones_tx_init(ced, MODEM_CONNECT_TONES_ANSAM_PR);
    modem_connect_tones_tx_free(ced);

    tone_gen_descriptor_t *desc = tone_gen_descriptor_init(NULL, 480, -24, 620, -24, 500, 500, 0, 0, 1);
    tone_gen_state_t *gen = tone_gen_init(NULL, desc);
    tone_gen(gen, audio_busy, AUDIO_SAMPLES);

    hdlc_tx_state_t *h = hdlc_tx_now = hdlc_tx_init(NULL, 0, 1, 0, hdlc_underflow, NULL);
    hdlc_underflow(NULL);
    for (int i = 0; i < AUDIO_SAMPLES; i++)
        hdlc_bits[i] = (uint8_t) hdlc_tx_get_bit(h);
    hdlc_tx_free(h);
}


/* ------------------------------------------- V.29 and V.27 ter (bench/dsp/modems.ts's twins) */

static int16_t audio_modem[AUDIO_SAMPLES];
static void v29_tx_step(void *ctx, int16_t *amp, int n) { (void) amp; v29_tx((v29_tx_state_t *) ctx, scratch, n); }
static void v29_rx_step(void *ctx, int16_t *amp, int n) { v29_rx((v29_rx_state_t *) ctx, amp, n); }
static void v27_tx_step(void *ctx, int16_t *amp, int n) { (void) amp; v27ter_tx((v27ter_tx_state_t *) ctx, scratch, n); }
static void v27_rx_step(void *ctx, int16_t *amp, int n) { v27ter_rx((v27ter_rx_state_t *) ctx, amp, n); }

static void modem_speed(int ms)
{
    char name[32];
    static const int v29_rates[] = { 9600, 4800 };
    for (int k = 0; k < 2; k++)
    {
        int r = v29_rates[k];
        bert_state_t *p = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, r, 20);
        v29_tx_state_t *tx = v29_tx_init(NULL, r, 0, prbs_get_bit, p);
        v29_tx_power(tx, -13.0f);
        if (k == 0)
        {
            printf("speed v29-tx-%d samples %.0f\n", r, rate(v29_tx_step, tx, NULL, ms));
            v29_tx_restart(tx, r, 0);
        }
        v29_tx(tx, audio_modem, AUDIO_SAMPLES);
        v29_rx_state_t *rx = v29_rx_init(NULL, r, null_put_bit, NULL);
        snprintf(name, sizeof(name), "v29-rx-%d", r);
        printf("speed %s samples %.0f\n", name, rate(v29_rx_step, rx, audio_modem, ms));
        fflush(stdout);
        v29_tx_free(tx);
        v29_rx_free(rx);
        bert_free(p);
    }
    static const int v27_rates[] = { 4800, 2400 };
    for (int k = 0; k < 2; k++)
    {
        int r = v27_rates[k];
        bert_state_t *p = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, r, 20);
        v27ter_tx_state_t *tx = v27ter_tx_init(NULL, r, 0, prbs_get_bit, p);
        v27ter_tx_power(tx, -13.0f);
        printf("speed v27ter-tx-%d samples %.0f\n", r, rate(v27_tx_step, tx, NULL, ms));
        v27ter_tx_restart(tx, r, 0);
        v27ter_tx(tx, audio_modem, AUDIO_SAMPLES);
        v27ter_rx_state_t *rx = v27ter_rx_init(NULL, r, null_put_bit, NULL);
        printf("speed v27ter-rx-%d samples %.0f\n", r, rate(v27_rx_step, rx, audio_modem, ms));
        fflush(stdout);
        v27ter_tx_free(tx);
        v27ter_rx_free(rx);
        bert_free(p);
    }
}

/* BER of a modem through white noise, at spandsp's own test level (-42 dBm0 against a -45.5 dBm0
   signal cutoff, so the noise alone never looks like carrier); errors counted up to the last whole
   thousand of data bits (as spandsp's tests read their last regular BERT report, not the dying
   carrier). */
#define MODEM_LEVEL_DBM0 (-42.0f)
static bert_results_t modem_last;
static void modem_reporter(void *user_data, int reason, bert_results_t *results)
{
    (void) user_data;
    if (reason == BERT_REPORT_REGULAR)
        modem_last = *results;
}

static void ber_modem(const char *modem, int bit_rate, int bits, int nsnr, char **snrs)
{
    int v29 = strcmp(modem, "v29") == 0;
    for (int k = 0; k < nsnr; k++)
    {
        double snr = atof(snrs[k]);
        bert_state_t *txb = bert_init(NULL, bits + 2000, BERT_PATTERN_ITU_O152_11, bit_rate, 20);
        bert_state_t *rxb = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, bit_rate, 20);
        memset(&modem_last, 0, sizeof(modem_last));
        bert_set_report(rxb, 1000, modem_reporter, NULL);
        void *tx = v29 ? (void *) v29_tx_init(NULL, bit_rate, 0, prbs_get_bit, txb) : (void *) v27ter_tx_init(NULL, bit_rate, 0, prbs_get_bit, txb);
        void *rx = v29 ? (void *) v29_rx_init(NULL, bit_rate, bert_put_bit_filtered, rxb) : (void *) v27ter_rx_init(NULL, bit_rate, bert_put_bit_filtered, rxb);
        if (v29)
        {
            v29_tx_power((v29_tx_state_t *) tx, MODEM_LEVEL_DBM0);
            v29_rx_signal_cutoff((v29_rx_state_t *) rx, -45.5f);
        }
        else
        {
            v27ter_tx_power((v27ter_tx_state_t *) tx, MODEM_LEVEL_DBM0);
            v27ter_rx_signal_cutoff((v27ter_rx_state_t *) rx, -45.5f);
        }
        awgn_state_t *noise = awgn_init_dbm0(NULL, 1234567 + k, (float) (MODEM_LEVEL_DBM0 - snr));
        int16_t amp[BLOCK];
        int n;
        do
        {
            n = v29 ? v29_tx((v29_tx_state_t *) tx, amp, BLOCK) : v27ter_tx((v27ter_tx_state_t *) tx, amp, BLOCK);
            for (int i = n; i < BLOCK; i++)
                amp[i] = 0;
            for (int i = 0; i < BLOCK; i++)
                amp[i] = saturate(amp[i] + awgn(noise));
            if (v29)
                v29_rx((v29_rx_state_t *) rx, amp, BLOCK);
            else
                v27ter_rx((v27ter_rx_state_t *) rx, amp, BLOCK);
        }
        while (n == BLOCK);
        printf("berm %s %d %g %d %d\n", modem, bit_rate, snr, modem_last.total_bits, modem_last.bad_bits);
        fflush(stdout);
        if (v29)
        {
            v29_tx_free((v29_tx_state_t *) tx);
            v29_rx_free((v29_rx_state_t *) rx);
        }
        else
        {
            v27ter_tx_free((v27ter_tx_state_t *) tx);
            v27ter_rx_free((v27ter_rx_state_t *) rx);
        }
        awgn_free(noise);
        bert_free(txb);
        bert_free(rxb);
    }
}

static void speed(int ms)
{
    make_audio();
#define REPORT(name, unit, r) printf("speed %s %s %.0f\n", name, unit, r); fflush(stdout)

    g711_state_t *ul = g711_init(NULL, G711_ULAW);
    g711_state_t *al = g711_init(NULL, G711_ALAW);
    REPORT("g711-ulaw-encode", "samples", rate(g711_ulaw_enc, ul, audio_v21, ms));
    REPORT("g711-ulaw-decode", "samples", rate(g711_ulaw_dec, ul, audio_v21, ms));
    REPORT("g711-alaw-encode", "samples", rate(g711_ulaw_enc, al, audio_v21, ms));
    REPORT("g711-alaw-decode", "samples", rate(g711_ulaw_dec, al, audio_v21, ms));

    power_meter_t *pm = power_meter_init(NULL, 5);
    REPORT("power-meter", "samples", rate(pm_step, pm, audio_v21, ms));

    tone_gen_descriptor_t *busy = tone_gen_descriptor_init(NULL, 480, -24, 620, -24, 500, 500, 0, 0, 1);
    tone_gen_state_t *gen = tone_gen_init(NULL, busy);
    REPORT("tone-tx-busy", "samples", rate(tone_gen_step, gen, NULL, ms));

    modem_connect_tones_tx_state_t *ansam = modem_connect_tones_tx_init(NULL, MODEM_CONNECT_TONES_ANSAM_PR);
    REPORT("tone-tx-ansam-pr", "samples", rate(mct_tx_step, ansam, NULL, ms));

    mct_pair_t pair;
    pair.cng = modem_connect_tones_rx_init(NULL, MODEM_CONNECT_TONES_FAX_CNG, tone_report, NULL);
    pair.ans = modem_connect_tones_rx_init(NULL, MODEM_CONNECT_TONES_ANS, tone_report, NULL);
    REPORT("fax-tone-rx", "samples", rate(mct_rx_step, &pair, audio_ced, ms));

    super_tone_rx_descriptor_t *d = super_tone_rx_make_descriptor(NULL);
    int t = super_tone_rx_add_tone(d); /* dial */
    super_tone_rx_add_element(d, t, 350, 440, 1000, 0);
    t = super_tone_rx_add_tone(d); /* ringback */
    super_tone_rx_add_element(d, t, 440, 480, 1500, 2600);
    super_tone_rx_add_element(d, t, -1, -1, 3000, 5000);
    t = super_tone_rx_add_tone(d); /* busy */
    super_tone_rx_add_element(d, t, 480, 620, 350, 650);
    super_tone_rx_add_element(d, t, -1, -1, 350, 650);
    t = super_tone_rx_add_tone(d); /* reorder */
    super_tone_rx_add_element(d, t, 480, 620, 175, 325);
    super_tone_rx_add_element(d, t, -1, -1, 175, 325);
    super_tone_rx_state_t *sup = super_tone_rx_init(NULL, d, super_report, NULL);
    REPORT("call-progress-rx", "samples", rate(super_rx_step, sup, audio_busy, ms));

    bert_state_t *prbs = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, 300, 20);
    fsk_tx_state_t *ftx = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], prbs_get_bit, prbs);
    REPORT("v21-tx", "samples", rate(fsk_tx_step, ftx, NULL, ms));
    fsk_rx_state_t *frx = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC, null_put_bit, NULL);
    REPORT("v21-rx", "samples", rate(fsk_rx_step, frx, audio_v21, ms));

    hdlc_tx_state_t *htx = hdlc_tx_now = hdlc_tx_init(NULL, 0, 1, 0, hdlc_underflow, NULL);
    hdlc_underflow(NULL);
    REPORT("hdlc-tx", "bits", rate(hdlc_tx_step, htx, NULL, ms));
    hdlc_rx_state_t *hrx = hdlc_rx_init(NULL, 0, 1, 5, hdlc_frame_sink, NULL);
    REPORT("hdlc-rx", "bits", rate(hdlc_rx_step, hrx, NULL, ms));

    bert_pair_t b;
    b.tx = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, 300, 20);
    b.rx = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, 300, 20);
    REPORT("bert", "bits", rate(bert_step, &b, NULL, ms));

    awgn_state_t *noise = awgn_init_dbm0(NULL, 1234567, -30.0f);
    REPORT("line-noise", "samples", rate(awgn_step, noise, audio_v21, ms));
    REPORT("line-noise-zig", "samples", rate(awgn_step, noise, audio_v21, ms));

    modem_speed(ms);
}

/* ---------------------------------------------------------------------------- BER vs SNR */

static void ber(int bits, int nsnr, char **snrs)
{
    for (int k = 0; k < nsnr; k++)
    {
        double snr = atof(snrs[k]);
        bert_state_t *txb = bert_init(NULL, bits, BERT_PATTERN_ITU_O152_11, 300, 20);
        bert_state_t *rxb = bert_init(NULL, bits, BERT_PATTERN_ITU_O152_11, 300, 20);
        fsk_tx_state_t *tx = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], prbs_get_bit, txb);
        fsk_tx_power(tx, -13.0f);
        fsk_rx_state_t *rx = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC, bert_put_bit_filtered, rxb);
        awgn_state_t *noise = awgn_init_dbm0(NULL, 1234567 + k, (float) (-13.0 - snr));
        int16_t amp[BLOCK];
        int n;
        do
        {
            n = fsk_tx(tx, amp, BLOCK);
            for (int i = 0; i < n; i++)
                amp[i] = saturate(amp[i] + awgn(noise));
            fsk_rx(rx, amp, n);
        }
        while (n == BLOCK);
        bert_results_t r;
        bert_result(rxb, &r);
        printf("ber %g %d %d\n", snr, r.total_bits, r.bad_bits);
        fflush(stdout);
        fsk_tx_free(tx);
        fsk_rx_free(rx);
        awgn_free(noise);
        bert_free(txb);
        bert_free(rxb);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "speed") == 0)
        speed(atoi(argv[2]));
    else if (argc >= 4 && strcmp(argv[1], "ber") == 0)
        ber(atoi(argv[2]), argc - 3, argv + 3);
    else if (argc >= 6 && strcmp(argv[1], "berm") == 0)
        ber_modem(argv[2], atoi(argv[3]), atoi(argv[4]), argc - 5, argv + 5);
    else
    {
        fprintf(stderr, "usage: dsp_bench speed MS | dsp_bench ber BITS SNR... | dsp_bench berm v29|v27ter RATE BITS SNR...\n");
        return 2;
    }
    return 0;
}
