/*
 * bench/dsp/instructions.ts's spandsp side: one block of dsp_bench.c's speed cases — a V.29 or
 * V.27 ter receiver over 10 s of its own transmitter's audio (training, then O.150 data, -13 dBm0,
 * 160-sample buffers), a V.29 or V.27 ter transmitter making 10 s of audio from O.150 data, or the
 * HDLC framer / deframer over 80,000 line bits (32-octet frames, one flag between them) — `loops`
 * times: the same work as dsp_bench.c's cases, a fixed amount of it instead of a fixed time, so
 * that valgrind can count its instructions.
 * V.17 as v17_bench.c's speed cases: the receiver over 10 s of its transmitter's audio (-14 dBm0,
 * restarted every 10 s), and the transmitter, restarted every 10 s of audio.
 *   rx_loops v27ter-rx-4800 13      rx_loops v27ter-tx-4800 13      rx_loops hdlc-rx 13
 *   rx_loops v17-rx-14400 13        rx_loops v17-tx-7200 13
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <spandsp.h>

#define SAMPLE_RATE 8000
#define AUDIO_SAMPLES (10 * SAMPLE_RATE)
#define BLOCK 160

static int16_t audio[AUDIO_SAMPLES];
static int16_t scratch[BLOCK];
static uint8_t hdlc_bits[AUDIO_SAMPLES];
static volatile int sink;

static int prbs_get_bit(void *user_data) { return bert_get_bit((bert_state_t *) user_data); }
static void null_put_bit(void *user_data, int bit) { (void) user_data; if (bit >= 0) sink = bit; }

static hdlc_tx_state_t *hdlc_tx_now;
static void hdlc_underflow(void *user_data)
{
    static const uint8_t frame[32] = { 0xff, 0x03, 0x40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29 };
    (void) user_data;
    hdlc_tx_frame(hdlc_tx_now, frame, sizeof(frame));
}
static void hdlc_frame_sink(void *user_data, const uint8_t *pkt, int len, int ok) { (void) user_data; (void) pkt; sink = len + ok; }

/* The HDLC cases (dsp_bench.c's hdlc_tx_step / hdlc_rx_step, BLOCK bits a step). */
static int hdlc_loops(const char *name, int loops)
{
    hdlc_tx_state_t *h = hdlc_tx_now = hdlc_tx_init(NULL, 0, 1, 0, hdlc_underflow, NULL);
    hdlc_underflow(NULL);
    if (strcmp(name, "hdlc-tx") == 0)
    {
        for (int l = 0; l < loops; l++)
            for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
            {
                int acc = 0;
                for (int j = 0; j < BLOCK; j++)
                    acc += hdlc_tx_get_bit(h);
                sink = acc;
            }
        return 0;
    }
    /* hdlc-rx-word: ours takes a V.17 symbol's bits at once (HdlcRx putWord); spandsp's V.17
       receiver hands its deframer one bit at a time, so its twin is hdlc-rx. */
    if (strcmp(name, "hdlc-rx") != 0 && strcmp(name, "hdlc-rx-word") != 0)
        return 2;
    for (int i = 0; i < AUDIO_SAMPLES; i++)
        hdlc_bits[i] = (uint8_t) hdlc_tx_get_bit(h);
    hdlc_rx_state_t *rx = hdlc_rx_init(NULL, 0, 1, 5, hdlc_frame_sink, NULL);
    int pos = 0;
    for (int l = 0; l < loops; l++)
        for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
            for (int j = 0; j < BLOCK; j++)
            {
                hdlc_rx_put_bit(rx, hdlc_bits[pos]);
                if (++pos == AUDIO_SAMPLES)
                    pos = 0;
            }
    return 0;
}

int main(int argc, char **argv)
{
    int rate;
    char modem[16];
    char dir[4];
    if (argc < 3)
    {
        fprintf(stderr, "usage: rx_loops v29-rx-9600|v29-tx-9600|v27ter-rx-4800|v27ter-tx-2400|v17-tx-14400|hdlc-tx|hdlc-rx|… loops\n");
        return 2;
    }
    int loops = atoi(argv[2]);
    if (strncmp(argv[1], "hdlc-", 5) == 0)
    {
        if (hdlc_loops(argv[1], loops) != 0)
        {
            fprintf(stderr, "rx_loops: unknown case %s\n", argv[1]);
            return 2;
        }
        printf("done %s %d\n", argv[1], loops);
        return 0;
    }
    if (sscanf(argv[1], "%15[a-z0-9]-%2[rtx]-%d", modem, dir, &rate) != 3 || (strcmp(dir, "rx") != 0 && strcmp(dir, "tx") != 0))
    {
        fprintf(stderr, "rx_loops: unknown case %s\n", argv[1]);
        return 2;
    }
    int tx_only = strcmp(dir, "tx") == 0;
    bert_state_t *p = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, rate, 20);
    if (strcmp(modem, "v29") == 0)
    {
        v29_tx_state_t *tx = v29_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v29_tx_power(tx, -13.0f);
        if (tx_only)
        {
            /* dsp_bench.c's v29_tx_step: BLOCK samples a call, never restarted. */
            for (int l = 0; l < loops; l++)
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v29_tx(tx, scratch, BLOCK);
        }
        else
        {
            v29_tx(tx, audio, AUDIO_SAMPLES);
            v29_rx_state_t *rx = v29_rx_init(NULL, rate, null_put_bit, NULL);
            for (int l = 0; l < loops; l++)
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v29_rx(rx, audio + i, BLOCK);
        }
    }
    else if (strcmp(modem, "v27ter") == 0)
    {
        v27ter_tx_state_t *tx = v27ter_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v27ter_tx_power(tx, -13.0f);
        if (tx_only)
        {
            for (int l = 0; l < loops; l++)
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v27ter_tx(tx, scratch, BLOCK);
        }
        else
        {
            v27ter_tx(tx, audio, AUDIO_SAMPLES);
            v27ter_rx_state_t *rx = v27ter_rx_init(NULL, rate, null_put_bit, NULL);
            for (int l = 0; l < loops; l++)
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v27ter_rx(rx, audio + i, BLOCK);
        }
    }
    else if (strcmp(modem, "v17") == 0)
    {
        v17_tx_state_t *tx = v17_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v17_tx_power(tx, -14.0f);
        if (tx_only)
        {
            for (int l = 0; l < loops; l++)
            {
                v17_tx_restart(tx, rate, 0, 0);
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v17_tx(tx, scratch, BLOCK);
            }
        }
        else
        {
            v17_tx(tx, audio, AUDIO_SAMPLES);
            v17_rx_state_t *rx = v17_rx_init(NULL, rate, null_put_bit, NULL);
            for (int l = 0; l < loops; l++)
            {
                v17_rx_restart(rx, rate, 0);
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v17_rx(rx, audio + i, BLOCK);
            }
        }
    }
    else
    {
        fprintf(stderr, "rx_loops: unknown modem %s\n", modem);
        return 2;
    }
    printf("done %s %d\n", argv[1], loops);
    return 0;
}
