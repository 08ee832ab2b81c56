/*
 * test/interop/modems/modem-peer.c — spandsp's V.29 and V.27 ter, on libspandsp's public API,
 * for native-free-dsp's V29Tx/V29Rx and V27terTx/V27terRx to be checked against. Audio is raw
 * s16le at 8000 samples/s on stdin/stdout; the data is the O.152 2^11-1 pattern (spandsp's BERT).
 *
 *   modem-peer tx v29|v27ter RATE BITS   100 ms of silence, training, BITS data bits, spandsp's
 *                                        shutdown, 200 ms of silence, at -13 dBm0: audio on stdout
 *   modem-peer rx v29|v27ter RATE        demodulate stdin (carrier cutoff -45.5 dBm0, as spandsp's
 *                                        fax front end): "status N" per modem status, then
 *                                        "ber BITS BAD" from the BERT's last regular report (every
 *                                        1000 bits: the bits after the data are not the pattern)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spandsp.h>

#define BLOCK 160

static bert_results_t last;

static void reporter(void *user_data, int reason, bert_results_t *results)
{
    (void) user_data;
    if (reason == BERT_REPORT_REGULAR)
        last = *results;
}

static int get_bit(void *user_data)
{
    return bert_get_bit((bert_state_t *) user_data);
}

static void put_bit(void *user_data, int bit)
{
    if (bit < 0)
    {
        printf("status %d\n", bit);
        return;
    }
    bert_put_bit((bert_state_t *) user_data, bit);
}

static void silence(int samples)
{
    int16_t amp[BLOCK];
    memset(amp, 0, sizeof(amp));
    for (int i = 0; i < samples; i += BLOCK)
        fwrite(amp, sizeof(int16_t), BLOCK, stdout);
}

static int tx(int v29, int rate, int bits)
{
    bert_state_t *bert = bert_init(NULL, bits, BERT_PATTERN_ITU_O152_11, rate, 20);
    v29_tx_state_t *t29 = NULL;
    v27ter_tx_state_t *t27 = NULL;
    if (v29)
    {
        t29 = v29_tx_init(NULL, rate, false, get_bit, bert);
        v29_tx_power(t29, -13.0f);
    }
    else
    {
        t27 = v27ter_tx_init(NULL, rate, false, get_bit, bert);
        v27ter_tx_power(t27, -13.0f);
    }
    silence(800);
    int16_t amp[BLOCK];
    int n;
    do
    {
        n = v29 ? v29_tx(t29, amp, BLOCK) : v27ter_tx(t27, amp, BLOCK);
        fwrite(amp, sizeof(int16_t), n, stdout);
    }
    while (n == BLOCK);
    silence(1600);
    return 0;
}

static int rx(int v29, int rate)
{
    bert_state_t *bert = bert_init(NULL, 0, BERT_PATTERN_ITU_O152_11, rate, 20);
    bert_set_report(bert, 1000, reporter, NULL);
    v29_rx_state_t *r29 = NULL;
    v27ter_rx_state_t *r27 = NULL;
    if (v29)
    {
        r29 = v29_rx_init(NULL, rate, put_bit, bert);
        v29_rx_signal_cutoff(r29, -45.5f);
    }
    else
    {
        r27 = v27ter_rx_init(NULL, rate, put_bit, bert);
        v27ter_rx_signal_cutoff(r27, -45.5f);
    }
    int16_t amp[BLOCK];
    size_t n;
    while ((n = fread(amp, sizeof(int16_t), BLOCK, stdin)) > 0)
    {
        if (v29)
            v29_rx(r29, amp, (int) n);
        else
            v27ter_rx(r27, amp, (int) n);
    }
    printf("ber %d %d\n", last.total_bits, last.bad_bits);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4)
    {
        int v29 = strcmp(argv[2], "v29") == 0;
        int rate = atoi(argv[3]);
        if (strcmp(argv[1], "tx") == 0 && argc >= 5)
            return tx(v29, rate, atoi(argv[4]));
        if (strcmp(argv[1], "rx") == 0)
            return rx(v29, rate);
    }
    fprintf(stderr, "usage: modem-peer tx v29|v27ter RATE BITS | modem-peer rx v29|v27ter RATE\n");
    return 2;
}
