/*
 * test/interop/fax-audio/fax-audio-peer.c — spandsp's side of the audio-line interop tests, on
 * libspandsp's public API: V.21 channel 2 + HDLC (fsk, hdlc) and the fax tones
 * (modem_connect_tones), to check native-free-dsp's V21Tx/V21Rx, HdlcTx/HdlcRx, ToneTx and
 * FaxToneRx against them. Audio is raw s16le at 8000 samples/s on stdin/stdout.
 *
 *   fax-audio-peer rx                demodulate stdin: "frame OK HEX" per frame (OK 1/0), "status N"
 *                                    (carrier cutoff -39.09 dBm0, as spandsp's fax front end)
 *   fax-audio-peer tx FLAGS HEX...   send FLAGS preamble flags, then each frame (hex, no FCS), at
 *                                    -13 dBm0, then a few closing flags: audio on stdout
 *   fax-audio-peer tone-tx TYPE MS   MS ms of modem_connect_tones_tx TYPE (1 CNG, 2 ANS, 3 ANS/,
 *                                    4 ANSam, 5 ANSam/): audio on stdout
 *   fax-audio-peer tone-rx TYPE      modem_connect_tones_rx TYPE (1 CNG, 2 ANS family) on stdin:
 *                                    "tone CODE LEVEL" per report, then "final CODE"
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

static void tone_report(void *user_data, int code, int level, int delay)
{
    (void) user_data;
    (void) delay;
    printf("tone %d %d\n", code, level);
}

static int tone_tx(int type, int ms)
{
    modem_connect_tones_tx_state_t *s = modem_connect_tones_tx_init(NULL, type);
    int16_t amp[BLOCK];
    for (int left = ms * 8; left > 0; left -= BLOCK)
    {
        int want = left < BLOCK ? left : BLOCK;
        int n = modem_connect_tones_tx(s, amp, want);
        memset(amp + n, 0, sizeof(int16_t) * (size_t) (want - n));
        fwrite(amp, sizeof(int16_t), (size_t) want, stdout);
    }
    modem_connect_tones_tx_free(s);
    return 0;
}

static int tone_rx(int type)
{
    modem_connect_tones_rx_state_t *s = modem_connect_tones_rx_init(NULL, type, tone_report, NULL);
    int16_t amp[BLOCK];
    size_t n;
    while ((n = fread(amp, sizeof(int16_t), BLOCK, stdin)) > 0)
        modem_connect_tones_rx(s, amp, (int) n);
    printf("final %d\n", modem_connect_tones_rx_get(s));
    modem_connect_tones_rx_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "tone-tx") == 0)
        return tone_tx(atoi(argv[2]), atoi(argv[3]));
    if (argc >= 3 && strcmp(argv[1], "tone-rx") == 0)
        return tone_rx(atoi(argv[2]));
    if (argc >= 2 && strcmp(argv[1], "rx") == 0)
        return rx();
    if (argc >= 3 && strcmp(argv[1], "tx") == 0)
        return tx(atoi(argv[2]), argc - 3, argv + 3);
    fprintf(stderr, "usage: fax-audio-peer rx | tx FLAGS HEX... | tone-tx TYPE MS | tone-rx TYPE\n");
    return 2;
}
