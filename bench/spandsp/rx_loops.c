/*
 * bench/dsp/instructions.ts's spandsp side: one V.29 or V.27 ter receiver over 10 s of its own
 * transmitter's audio (training, then O.150 data, -13 dBm0, 160-sample buffers), `loops` times —
 * the same audio and buffers as dsp_bench.c's speed cases, with a fixed amount of work instead of
 * a fixed time, so that valgrind can count its instructions. V.17 as v17_bench.c's speed cases:
 * the receiver over 10 s of its transmitter's audio (-14 dBm0, restarted every 10 s), and the
 * transmitter, restarted every 10 s of audio.
 *   rx_loops v27ter-rx-4800 13
 *   rx_loops v17-tx-14400 13
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
static volatile int sink;

static int prbs_get_bit(void *user_data) { return bert_get_bit((bert_state_t *) user_data); }
static void null_put_bit(void *user_data, int bit) { (void) user_data; if (bit >= 0) sink = bit; }

int main(int argc, char **argv)
{
    int rate;
    char modem[16];
    char dir[3];
    if (argc < 3 || sscanf(argv[1], "%15[a-z0-9]-%2[rtx]-%d", modem, dir, &rate) != 3
        || (strcmp(dir, "rx") != 0 && (strcmp(dir, "tx") != 0 || strcmp(modem, "v17") != 0)))
    {
        fprintf(stderr, "usage: rx_loops v29-rx-9600|v29-rx-4800|v27ter-rx-4800|v27ter-rx-2400|v17-rx-RATE|v17-tx-RATE loops\n");
        return 2;
    }
    int loops = atoi(argv[2]);
    bert_state_t *p = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, rate, 20);
    if (strcmp(modem, "v29") == 0)
    {
        v29_tx_state_t *tx = v29_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v29_tx_power(tx, -13.0f);
        v29_tx(tx, audio, AUDIO_SAMPLES);
        v29_rx_state_t *rx = v29_rx_init(NULL, rate, null_put_bit, NULL);
        for (int l = 0; l < loops; l++)
            for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                v29_rx(rx, audio + i, BLOCK);
    }
    else if (strcmp(modem, "v27ter") == 0)
    {
        v27ter_tx_state_t *tx = v27ter_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v27ter_tx_power(tx, -13.0f);
        v27ter_tx(tx, audio, AUDIO_SAMPLES);
        v27ter_rx_state_t *rx = v27ter_rx_init(NULL, rate, null_put_bit, NULL);
        for (int l = 0; l < loops; l++)
            for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                v27ter_rx(rx, audio + i, BLOCK);
    }
    else if (strcmp(modem, "v17") == 0)
    {
        v17_tx_state_t *tx = v17_tx_init(NULL, rate, 0, prbs_get_bit, p);
        v17_tx_power(tx, -14.0f);
        if (strcmp(dir, "tx") == 0)
        {
            for (int l = 0; l < loops; l++)
            {
                v17_tx_restart(tx, rate, 0, 0);
                for (int i = 0; i < AUDIO_SAMPLES; i += BLOCK)
                    v17_tx(tx, audio + i, BLOCK);
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
