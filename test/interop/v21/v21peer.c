/*
 * test/interop/v21/v21peer.c — a V.21 channel 2 + HDLC peer on libspandsp's public API, for
 * checking native-free-dsp's V21Tx/V21Rx and HdlcTx/HdlcRx against spandsp's fsk and hdlc.
 * Audio is raw s16le at 8000 samples/s on stdin/stdout.
 *
 *   v21peer rx                    demodulate stdin: "frame OK HEX" per frame (OK 1/0), "status N"
 *                                 (carrier cutoff -39.09 dBm0, as spandsp's fax front end)
 *   v21peer tx FLAGS HEX...       send FLAGS preamble flags, then each frame (hex, no FCS), at
 *                                 -13 dBm0, then a few closing flags: audio on stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spandsp.h>

#define BLOCK 160

static void frame_handler(void *user_data, const uint8_t *pkt, int len, int ok)
{
    (void) user_data;
    if (len < 0)
    {
        printf("status %d\n", len);
        return;
    }
    printf("frame %d ", ok ? 1 : 0);
    for (int i = 0; i < len; i++)
        printf("%02x", pkt[i]);
    printf("\n");
}

static int rx(void)
{
    hdlc_rx_state_t *hdlc = hdlc_rx_init(NULL, false, true, 5, frame_handler, NULL);
    fsk_rx_state_t *fsk = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC, (put_bit_func_t) hdlc_rx_put_bit, hdlc);
    /* As spandsp's own fax front end sets it (fax_modems.c); the preset's -30 dBm0 would miss a
       weak line. */
    fsk_rx_signal_cutoff(fsk, -39.09f);
    int16_t amp[BLOCK];
    size_t n;
    while ((n = fread(amp, sizeof(int16_t), BLOCK, stdin)) > 0)
        fsk_rx(fsk, amp, (int) n);
    fsk_rx_free(fsk);
    hdlc_rx_free(hdlc);
    return 0;
}

/* Frames to send, fed to the framer one at a time from its underflow callback. */
static uint8_t frames[64][512];
static int frame_len[64];
static int n_frames;
static int next_frame;
static int tail_bits = -1; /* counts down once the last frame has been queued and sent */
static hdlc_tx_state_t *hdlc_tx;

static void underflow(void *user_data)
{
    (void) user_data;
    if (next_frame < n_frames)
    {
        hdlc_tx_frame(hdlc_tx, frames[next_frame], frame_len[next_frame]);
        next_frame++;
    }
    else if (tail_bits < 0)
    {
        tail_bits = 3 * 8; /* three more flags, then stop */
    }
}

static int get_bit(void *user_data)
{
    (void) user_data;
    if (tail_bits == 0)
        return SIG_STATUS_END_OF_DATA;
    if (tail_bits > 0)
        tail_bits--;
    return hdlc_tx_get_bit(hdlc_tx);
}

static int hexval(int c)
{
    return (c >= '0' && c <= '9') ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int tx(int flags, int argc, char **argv)
{
    for (int k = 0; k < argc && k < 64; k++)
    {
        size_t len = strlen(argv[k]) / 2;
        if (len > sizeof(frames[0]))
            len = sizeof(frames[0]);
        for (size_t i = 0; i < len; i++)
            frames[k][i] = (uint8_t) (hexval(argv[k][2 * i]) << 4 | hexval(argv[k][2 * i + 1]));
        frame_len[k] = (int) len;
        n_frames++;
    }
    hdlc_tx = hdlc_tx_init(NULL, false, 1, false, underflow, NULL);
    hdlc_tx_flags(hdlc_tx, flags);
    fsk_tx_state_t *fsk = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], get_bit, NULL);
    fsk_tx_power(fsk, -13.0f);
    int16_t amp[BLOCK];
    int n;
    do
    {
        n = fsk_tx(fsk, amp, BLOCK);
        fwrite(amp, sizeof(int16_t), (size_t) n, stdout);
    }
    while (n == BLOCK);
    fsk_tx_free(fsk);
    hdlc_tx_free(hdlc_tx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "rx") == 0)
        return rx();
    if (argc >= 3 && strcmp(argv[1], "tx") == 0)
        return tx(atoi(argv[2]), argc - 3, argv + 3);
    fprintf(stderr, "usage: v21peer rx | v21peer tx FLAGS HEX...\n");
    return 2;
}
