/* spandsp's own time for one fax call over audio, the anchor of bench/audio-call.ts: two
   fax_state_t terminals (modems and T.30) in one process, each 20 ms block of one's fax_tx()
   handed to the other's fax_rx(), until both ends reach phase E. Written against spandsp's
   public API. Prints one JSON line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>
#include <spandsp.h>

#define BLOCK 160

static int done[2], status[2], pages[2], bit_rate[2];

static void phase_e(t30_state_t *s, void *user, int completion)
{
    int side = (int) (intptr_t) user;
    t30_stats_t st;
    t30_get_transfer_statistics(s, &st);
    done[side] = 1;
    status[side] = completion;
    pages[side] = side == 0 ? st.pages_tx : st.pages_rx;
    bit_rate[side] = st.bit_rate;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: audio_call TX.tif RX.tif ECM(0|1)\n");
        return 2;
    }
    int ecm = atoi(argv[3]);
    fax_state_t *fax[2];
    for (int side = 0; side < 2; side++) {
        fax[side] = fax_init(NULL, side == 0);
        if (!fax[side]) return 1;
        t30_state_t *t30 = fax_get_t30_state(fax[side]);
        t30_set_ecm_capability(t30, ecm);
        t30_set_supported_compressions(t30, T30_SUPPORT_T4_1D_COMPRESSION | T30_SUPPORT_T4_2D_COMPRESSION | T30_SUPPORT_T6_COMPRESSION);
        t30_set_phase_e_handler(t30, phase_e, (void *) (intptr_t) side);
        if (side == 0) t30_set_tx_file(t30, argv[1], -1, -1);
        else t30_set_rx_file(t30, argv[2], -1);
    }
    int16_t buf[2][BLOCK];
    struct timespec a, b, ca, cb;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    long steps = 0;
    while (!(done[0] && done[1]) && steps < 20L * 60 * 50) {
        for (int side = 0; side < 2; side++) {
            int n = fax_tx(fax[side], buf[side], BLOCK);
            if (n < BLOCK) memset(buf[side] + n, 0, sizeof(int16_t) * (size_t) (BLOCK - n));
        }
        for (int side = 0; side < 2; side++) fax_rx(fax[1 - side], buf[side], BLOCK);
        steps++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    double ms = (double) (b.tv_sec - a.tv_sec) * 1e3 + (double) (b.tv_nsec - a.tv_nsec) / 1e6;
    double cpu = (double) (cb.tv_sec - ca.tv_sec) * 1e3 + (double) (cb.tv_nsec - ca.tv_nsec) / 1e6;
    printf("{\"wallMs\":%.3f,\"cpuMs\":%.3f,\"simulatedMs\":%ld,\"txPages\":%d,\"rxPages\":%d,\"txStatus\":%d,\"rxStatus\":%d,\"bitRate\":%d}\n",
           ms, cpu, steps * 20, pages[0], pages[1], status[0], status[1], bit_rate[1]);
    return status[0] == T30_ERR_OK && status[1] == T30_ERR_OK ? 0 : 1;
}
