/* spandsp's own terminal-to-terminal time for one fax call, the anchor of bench/t38-call.ts:
   two t38_terminals in one process, each IFP packet handed straight to the other (no UDPTL,
   no sockets), pacing off, time advanced in 20 ms steps (160 samples) until both ends reach
   phase E. Written against spandsp's public API. Prints one JSON line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>
#include <spandsp.h>

#define QUEUE 8192
#define MAX_PACKET 1024

typedef struct { uint8_t data[MAX_PACKET]; int len; } packet_t;
static packet_t queue[2][QUEUE];
static int queued[2];
static int done[2], status[2], pages[2];
static uint16_t seq[2];

static int tx_packet(t38_core_state_t *s, void *user, const uint8_t *buf, int len, int count)
{
    int side = (int) (intptr_t) user;
    (void) s;
    (void) count; /* one copy is enough between two terminals in one process */
    if (len > MAX_PACKET || queued[side] >= QUEUE) return 0;
    memcpy(queue[side][queued[side]].data, buf, (size_t) len);
    queue[side][queued[side]].len = len;
    queued[side]++;
    return 0;
}

static void phase_e(t30_state_t *s, void *user, int completion)
{
    int side = (int) (intptr_t) user;
    t30_stats_t st;
    t30_get_transfer_statistics(s, &st);
    done[side] = 1;
    status[side] = completion;
    pages[side] = side == 0 ? st.pages_tx : st.pages_rx;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: t38_call TX.tif RX.tif ECM(0|1)\n");
        return 2;
    }
    int ecm = atoi(argv[3]);
    t38_terminal_state_t *term[2];
    for (int side = 0; side < 2; side++) {
        term[side] = t38_terminal_init(NULL, side == 0, tx_packet, (void *) (intptr_t) side);
        if (!term[side]) return 1;
        t38_terminal_set_config(term[side], T38_TERMINAL_OPTION_NO_PACING);
        t30_state_t *t30 = t38_terminal_get_t30_state(term[side]);
        t30_set_ecm_capability(t30, ecm);
        t30_set_supported_compressions(t30, T30_SUPPORT_T4_1D_COMPRESSION | T30_SUPPORT_T4_2D_COMPRESSION | T30_SUPPORT_T6_COMPRESSION);
        t30_set_phase_e_handler(t30, phase_e, (void *) (intptr_t) side);
        if (side == 0) t30_set_tx_file(t30, argv[1], -1, -1);
        else t30_set_rx_file(t30, argv[2], -1);
    }
    struct timespec a, b, ca, cb;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    long steps = 0;
    while (!(done[0] && done[1]) && steps < 20L * 60 * 50) {
        for (int side = 0; side < 2; side++) t38_terminal_send_timeout(term[side], 160);
        for (int side = 0; side < 2; side++) {
            int n = queued[side];
            queued[side] = 0;
            for (int i = 0; i < n; i++)
                t38_core_rx_ifp_packet(t38_terminal_get_t38_core_state(term[1 - side]), queue[side][i].data, queue[side][i].len, seq[side]++);
        }
        steps++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    double ms = (double) (b.tv_sec - a.tv_sec) * 1e3 + (double) (b.tv_nsec - a.tv_nsec) / 1e6;
    double cpu = (double) (cb.tv_sec - ca.tv_sec) * 1e3 + (double) (cb.tv_nsec - ca.tv_nsec) / 1e6;
    printf("{\"wallMs\":%.3f,\"cpuMs\":%.3f,\"simulatedMs\":%ld,\"txPages\":%d,\"rxPages\":%d,\"txStatus\":%d,\"rxStatus\":%d}\n",
           ms, cpu, steps * 20, pages[0], pages[1], status[0], status[1]);
    return status[0] == T30_ERR_OK && status[1] == T30_ERR_OK ? 0 : 1;
}
