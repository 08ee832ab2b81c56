/*
 * t38peer: a T.38 fax terminal for faxstack's interop tests, built on libspandsp's public API
 * (t38_terminal + t30 TIFF I/O) with its own UDPTL framing (T.38 clause 9.1: sequence numbers,
 * redundancy error recovery) over a UDP socket.
 *
 * Time runs in lockstep with a test driver, never with the wall clock. The driver writes
 * commands on stdin, one per line:
 *   tick N [M]      take in every datagram that has arrived (first waiting, if M is given, until
 *                   M datagrams have arrived since the start), advance N samples (8 kHz), send
 *                   what falls due; answer "ok S" once all of it has been handed to the socket,
 *                   S being the datagrams handed to the socket since the start. Passing the
 *                   other side's S as M makes every step see exactly the datagrams of the
 *                   steps before it.
 *   remote H:P      where to send (if --remote was not given and nothing was latched yet)
 *   quit            print {"event":"quit",...} and exit
 * Events go to stdout as JSON lines: ready (with the bound port), page, hangup, line-down,
 * done (at T.30 phase E), error. spandsp's own log goes to stderr with --log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <tiffio.h>
#include <spandsp.h>
#include <spandsp/version.h>

#define MAX_IFP 1024
#define MAX_DATAGRAM 4096
#define MAX_REDUNDANCY 16
#define SAMPLE_RATE 8000

/* ---------------------------------------------------------------- options */

enum fail_mode { FAIL_NONE, FAIL_NO_ANSWER, FAIL_HANGUP_MID_PAGE, FAIL_SILENT_MID_PAGE, FAIL_REJECT_CODING, FAIL_FTT_ALWAYS };

static struct {
    int sending;              /* --role send (calling, has a document) or receive (answering) */
    const char *tiff;
    int local_port;
    char remote_host[64];
    int remote_port;
    int ecm;
    int redundancy;
    int fec_span, fec_entries;  /* --fec SPAN:ENTRIES instead of redundancy */
    double loss_pct;          /* outgoing datagrams dropped */
    double loss_rx_pct;       /* incoming datagrams dropped (the other direction's path) */
    int max_burst;            /* never drop more than this many datagrams in a row (0: no cap) */
    uint32_t seed;
    const char *ident;
    int max_rate;
    int compressions;         /* T30_SUPPORT_*_COMPRESSION bits */
    int resolutions;          /* T30_SUPPORT_*_RESOLUTION bits */
    enum fail_mode fail;
    int fail_page;            /* hang up in this page (1-based) */
    int fail_after;           /* ... after this many image-data IFP packets of it */
    int t38_version;
    int substep;              /* largest step handed to t38_terminal_send_timeout */
    int log;
} opt;

/* ---------------------------------------------------------------- output */

static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/* JSON string body with the few escapes an ident or a T.30 message can need. */
static const char *json_str(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 7 < size; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') { buf[n++] = '\\'; buf[n++] = (char) c; }
        else if (c < 0x20 || c >= 0x7f) n += (size_t) snprintf(buf + n, size - n, "\\u%04x", c);
        else buf[n++] = (char) c;
    }
    buf[n] = '\0';
    return buf;
}

static void die(const char *fmt, ...)
{
    char msg[512], esc[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit("{\"event\":\"error\",\"message\":\"%s\"}", json_str(msg, esc, sizeof esc));
    exit(2);
}

/* ---------------------------------------------------------------- state */

static t38_terminal_state_t *term;
static t30_state_t *t30;
static int sock = -1;
static int remote_known;
static struct sockaddr_in remote;
static int finished;          /* phase E seen */
static int line_dead;         /* hung up, went silent, or saw the far end go away */
static int terminate_pending; /* end T.30 once out of spandsp's call stack */
static int64_t now_samples;

/* A loss model per direction: independent drops at a given rate from a seeded xorshift32
   generator, optionally with runs of drops capped (so that a redundancy depth of at least the
   cap can recover every loss). */
struct loss_model {
    uint32_t state;
    double pct;
    int run;
};
static struct loss_model loss_tx, loss_rx;

static void loss_init(struct loss_model *m, double pct, uint32_t seed)
{
    m->pct = pct;
    m->run = 0;
    m->state = seed * 2654435761u;
    if (!m->state) m->state = 0x9e3779b9u;
}

static int loss_drop(struct loss_model *m)
{
    if (m->pct <= 0) return 0;
    uint32_t x = m->state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    m->state = x;
    int drop = (double) x / 4294967296.0 * 100.0 < m->pct;
    if (drop && opt.max_burst > 0 && m->run >= opt.max_burst) drop = 0;
    m->run = drop ? m->run + 1 : 0;
    return drop;
}

/* ---------------------------------------------------------------- IFP inspection */

/* What one IFP packet carries, as far as the failure modes need to know (T.38 clause 8). */
struct ifp_info {
    int is_data;
    int data_type;            /* T38_DATA_* for data packets, else the indicator */
    int nfields;
    int field_type[8];
    int field_off[8];         /* offset of each field's data in the packet, or -1 */
    int field_len[8];
    int length;               /* octets the packet takes (trailing octets are not part of it) */
};

/* Walks the PER encoding of an IFP packet; returns 0, or -1 when it is malformed. */
static int ifp_parse(const uint8_t *p, int len, struct ifp_info *info)
{
    int ptr = 0;
    memset(info, 0, sizeof *info);
    if (len < 1) return -1;
    int has_fields = p[0] & 0x80;
    info->is_data = (p[0] >> 6) & 1;
    if (p[0] & 0x20) {        /* extension: values past the root set */
        if (len < 2) return -1;
        info->data_type = (info->is_data ? T38_DATA_V8 : T38_IND_V8_ANSAM) + (((p[0] << 2) & 0x3c) | (p[1] >> 6));
        ptr = 2;
    } else {
        info->data_type = (p[0] >> 1) & 0x0f;
        ptr = 1;
    }
    if (!info->is_data || !has_fields) { info->length = ptr; return 0; }
    if (ptr >= len) return -1;
    int count = p[ptr++];
    int half = 0;             /* version 0 packs a data-less field into half an octet */
    for (int i = 0; i < count; i++) {
        int present, type;
        if (ptr >= len) return -1;
        if (opt.t38_version == 0) {
            if (half) { present = (p[ptr] >> 3) & 1; type = p[ptr] & 7; ptr++; half = 0; }
            else { present = p[ptr] >> 7; type = (p[ptr] >> 4) & 7; if (present) ptr++; else half = 1; }
        } else {
            present = p[ptr] >> 7;
            if (p[ptr] & 0x40) {
                if (ptr + 2 > len) return -1;
                type = T38_FIELD_CM_MESSAGE + (((p[ptr] << 2) & 0x3c) | (p[ptr + 1] >> 6));
                ptr += 2;
            } else {
                type = (p[ptr++] >> 3) & 7;
            }
        }
        int off = -1, n = 0;
        if (present) {
            if (ptr + 2 > len) return -1;
            n = ((p[ptr] << 8) | p[ptr + 1]) + 1;
            off = ptr + 2;
            ptr += 2 + n;
            if (ptr > len) return -1;
        }
        if (i < 8) {
            info->field_type[i] = type;
            info->field_off[i] = off;
            info->field_len[i] = n;
            info->nfields = i + 1;
        }
    }
    info->length = ptr + half;
    return 0;
}

static int is_image_data(const struct ifp_info *f)
{
    return f->is_data && f->data_type != T38_DATA_V21 && f->data_type >= T38_DATA_V27TER_2400 && f->data_type <= T38_DATA_V17_14400;
}

/* ---------------------------------------------------------------- failure modes */

static int cfr_seen;          /* training accepted: what follows at the fast rate is image data */
static int pages_done;
static int image_packets;     /* image-data IFP packets in the page chosen by --fail-page */

static void hang_up(const char *how)
{
    if (line_dead) return;
    line_dead = 1;
    emit("{\"event\":\"hangup\",\"mode\":\"%s\",\"page\":%d,\"imagePackets\":%d}", how, pages_done + 1, image_packets);
    if (opt.fail == FAIL_HANGUP_MID_PAGE) {
        /* Like a BYE: the socket goes, so the far end's next datagram draws ICMP port
           unreachable, and our own T.30 ends now with "call dropped". */
        close(sock);
        sock = -1;
        terminate_pending = 1;
    }
}

/* Counts image data going our way (received when receiving, sent when sending). */
static void watch_image(const uint8_t *ifp, int len, int outgoing)
{
    struct ifp_info f;
    if (opt.fail != FAIL_HANGUP_MID_PAGE && opt.fail != FAIL_SILENT_MID_PAGE) return;
    if (outgoing != opt.sending || !cfr_seen || pages_done + 1 != opt.fail_page) return;
    if (ifp_parse(ifp, len, &f) || !is_image_data(&f)) return;
    if (++image_packets >= opt.fail_after) hang_up(opt.fail == FAIL_HANGUP_MID_PAGE ? "hangup-mid-page" : "silent-mid-page");
}

/* ftt-always: spoil every TCF that arrives, so spandsp's own trainability check (a long enough
   run of zeros) fails at every rate and it answers FTT. Image data never follows, as no CFR
   is ever sent. */
static void spoil_tcf(uint8_t *ifp, int len)
{
    struct ifp_info f;
    if (ifp_parse(ifp, len, &f) || !is_image_data(&f)) return;
    for (int i = 0; i < f.nfields; i++)
        if (f.field_type[i] == T38_FIELD_T4_NON_ECM_DATA && f.field_off[i] >= 0)
            for (int j = 0; j < f.field_len[i]; j++) ifp[f.field_off[i] + j] = 0x55;
}

/* ---------------------------------------------------------------- UDPTL (T.38 9.1) */

#define HIST 256              /* IFP packets remembered each way: redundancy depth or FEC span × entries */

static uint16_t tx_seq;
static int tx_count;          /* packets sent so far (how much recovery data exists) */
static uint8_t tx_hist[HIST][MAX_IFP];
static int tx_hist_len[HIST];
static uint8_t rx_hist[HIST][MAX_IFP];
static int rx_hist_len[HIST];
static int rx_hist_seq[HIST]; /* which sequence number each slot holds, -1 for none */
static long datagrams_sent, datagrams_dropped, datagrams_received, datagrams_rx_dropped;
static long packets_recovered, packets_recovered_fec, packets_lost;
/* Datagrams handed to the socket / read from it, whatever happened to them next: the barrier
   counts of the lockstep protocol. */
static long wire_out, wire_in;

/* PER length determinant, for lengths below 16384 (longer ones would need fragments). */
static int put_len(uint8_t *b, int len)
{
    if (len < 0x80) { b[0] = (uint8_t) len; return 1; }
    b[0] = (uint8_t) (0x80 | (len >> 8));
    b[1] = (uint8_t) len;
    return 2;
}

static int get_len(const uint8_t *b, int avail, int *pos, int *len)
{
    if (*pos >= avail) return -1;
    if ((b[*pos] & 0x80) == 0) { *len = b[(*pos)++]; return 0; }
    if ((b[*pos] & 0xc0) == 0x80 && *pos + 1 < avail) { *len = ((b[*pos] & 0x3f) << 8) | b[*pos + 1]; *pos += 2; return 0; }
    return -1;                /* fragmented form: no IFP needs it */
}

static void line_down(const char *why)
{
    if (line_dead || finished) return;
    line_dead = 1;
    emit("{\"event\":\"line-down\",\"reason\":\"%s\"}", why);
    terminate_pending = 1;
}

static void send_datagram(const uint8_t *buf, int len)
{
    datagrams_sent++;
    if (loss_drop(&loss_tx)) { datagrams_dropped++; return; }
    if (sock < 0 || !remote_known) return;
    if (send(sock, buf, (size_t) len, 0) < 0) {
        if (errno == ECONNREFUSED) line_down("ECONNREFUSED");
        return;
    }
    wire_out++;
}

/* Parity entry m of a FEC packet: the XOR of packets (count) + m - k·entries, k = 1..span,
   zero-padded to the longest of them. */
static int fec_parity(uint8_t *out, int count, int m, int span, int entries)
{
    int len = 0;
    for (int k = 1; k <= span; k++) {
        int slot = (count + m - k * entries) % HIST;
        if (tx_hist_len[slot] > len) len = tx_hist_len[slot];
    }
    memset(out, 0, (size_t) len);
    for (int k = 1; k <= span; k++) {
        int slot = (count + m - k * entries) % HIST;
        for (int j = 0; j < tx_hist_len[slot]; j++) out[j] ^= tx_hist[slot][j];
    }
    return len;
}

/* One UDPTL packet: seq, the IFP packet, then the error recovery: the previous `redundancy` IFP
   packets (newest first), or with --fec parity over the span × entries packets before it. */
static void udptl_send(const uint8_t *ifp, int len)
{
    uint8_t d[MAX_DATAGRAM];
    int n = 0;
    d[n++] = (uint8_t) (tx_seq >> 8);
    d[n++] = (uint8_t) tx_seq;
    n += put_len(d + n, len);
    memcpy(d + n, ifp, (size_t) len);
    n += len;
    if (opt.fec_span > 0) {
        /* At the start of the stream only whole groups of packets that exist are covered. */
        int entries = opt.fec_entries < tx_count / opt.fec_span ? opt.fec_entries : tx_count / opt.fec_span;
        int span = entries > 0 ? opt.fec_span : 0;
        d[n++] = 0x80;        /* error-recovery: fec-info */
        d[n++] = 1;           /* fec-npackets, an unconstrained INTEGER: one octet */
        d[n++] = (uint8_t) span;
        n += put_len(d + n, entries);
        for (int m = 0; m < entries; m++) {
            uint8_t parity[MAX_IFP];
            int plen = fec_parity(parity, tx_count, m, span, entries);
            if (n + 2 + plen > MAX_DATAGRAM) die("UDPTL packet too large");
            n += put_len(d + n, plen);
            memcpy(d + n, parity, (size_t) plen);
            n += plen;
        }
    } else {
        int depth = opt.redundancy < tx_count ? opt.redundancy : tx_count;
        d[n++] = 0x00;        /* error-recovery: secondary-ifp-packets */
        n += put_len(d + n, depth);
        for (int i = 1; i <= depth; i++) {
            int slot = (tx_count - i) % HIST;
            if (n + 2 + tx_hist_len[slot] > MAX_DATAGRAM) die("UDPTL packet too large");
            n += put_len(d + n, tx_hist_len[slot]);
            memcpy(d + n, tx_hist[slot], (size_t) tx_hist_len[slot]);
            n += tx_hist_len[slot];
        }
    }
    int slot = tx_count % HIST;
    memcpy(tx_hist[slot], ifp, (size_t) len);
    tx_hist_len[slot] = len;
    tx_count++;
    tx_seq++;
    send_datagram(d, n);
}

/* t38_core hands us each IFP packet with how many times to send it; each copy is its own
   UDPTL packet with its own sequence number, as the far end's duplicate filtering expects. */
static int tx_packet_handler(t38_core_state_t *s, void *user_data, const uint8_t *buf, int len, int count)
{
    (void) s;
    (void) user_data;
    if (len > MAX_IFP) die("IFP packet of %d octets", len);
    if (line_dead) return 0;
    watch_image(buf, len, 1);
    if (line_dead) return 0;
    for (int i = 0; i < count; i++) udptl_send(buf, len);
    return 0;
}

static int rx_expected = -1;  /* next sequence number wanted; -1 before the first packet */

static void deliver(const uint8_t *ifp, int len, uint16_t seq)
{
    uint8_t copy[MAX_IFP];
    if (len > MAX_IFP) return;
    int slot = seq % HIST;
    memcpy(rx_hist[slot], ifp, (size_t) len);
    rx_hist_len[slot] = len;
    rx_hist_seq[slot] = seq;
    memcpy(copy, ifp, (size_t) len);
    if (opt.fail == FAIL_FTT_ALWAYS) spoil_tcf(copy, len);
    watch_image(copy, len, 0);
    if (line_dead) return;
    t38_core_rx_ifp_packet(t38_terminal_get_t38_core_state(term), copy, len, seq);
}

/* Rebuilds packet `want` from entry m of the FEC carried by packet `seq`, if every other packet
   of its parity group has been seen; returns its length, or -1. */
static int fec_rebuild(uint8_t *out, uint16_t want, uint16_t seq, int span, int entries, const uint8_t *entry[], const int entry_len[])
{
    int back = (uint16_t) (seq - want);                 /* want = seq - back */
    int m = (entries - back % entries) % entries;       /* want ≡ seq + m (mod entries) */
    int k = (m + back) / entries;                       /* want = seq + m - k·entries */
    if (k < 1 || k > span) return -1;
    int len = entry_len[m];
    memcpy(out, entry[m], (size_t) len);
    for (int j = 1; j <= span; j++) {
        if (j == k) continue;
        uint16_t other = (uint16_t) (seq + m - j * entries);
        int slot = other % HIST;
        if (rx_hist_seq[slot] != other) return -1;
        for (int b = 0; b < rx_hist_len[slot] && b < len; b++) out[b] ^= rx_hist[slot][b];
    }
    /* Zero padding up to the longest packet of the group: the IFP says how long it really is. */
    struct ifp_info f;
    if (ifp_parse(out, len, &f) == 0 && f.length > 0 && f.length <= len) len = f.length;
    return len;
}

static void udptl_receive(uint8_t *d, int n)
{
    struct { int off, len; } sec[MAX_REDUNDANCY];
    const uint8_t *fec[MAX_REDUNDANCY * 8];
    int fec_len[MAX_REDUNDANCY * 8];
    int nsec = 0, nfec = 0, fec_span = 0, pos = 2, plen, poff;
    if (n < 4) return;
    uint16_t seq = (uint16_t) ((d[0] << 8) | d[1]);
    if (get_len(d, n, &pos, &plen) || pos + plen > n || plen < 1) return;
    poff = pos;
    pos += plen;
    if (pos < n && (d[pos] & 0x80) == 0) {
        /* secondary-ifp-packets, newest first */
        int count;
        pos++;
        if (get_len(d, n, &pos, &count)) return;
        for (int i = 0; i < count; i++) {
            int l;
            if (get_len(d, n, &pos, &l) || pos + l > n) return;
            if (nsec < MAX_REDUNDANCY) { sec[nsec].off = pos; sec[nsec].len = l; nsec++; }
            pos += l;
        }
    } else if (pos < n) {
        /* fec-info: fec-npackets (length and big-endian octets), then the parity entries */
        int ilen, count;
        pos++;
        if (get_len(d, n, &pos, &ilen) || ilen < 1 || ilen > 4 || pos + ilen > n) return;
        for (int i = 0; i < ilen; i++) fec_span = (fec_span << 8) | d[pos++];
        if (get_len(d, n, &pos, &count)) return;
        for (int i = 0; i < count; i++) {
            int l;
            if (get_len(d, n, &pos, &l) || pos + l > n || l > MAX_IFP) return;
            if (nfec < (int) (sizeof fec / sizeof fec[0])) { fec[nfec] = d + pos; fec_len[nfec] = l; nfec++; }
            pos += l;
        }
        if (fec_span < 1 || nfec < 1 || fec_span * nfec > 128) nfec = 0;
    }
    int gap;
    if (rx_expected < 0) gap = nsec;
    else {
        gap = (uint16_t) (seq - (uint16_t) rx_expected);
        if (gap >= 0x8000) return;    /* a duplicate or a packet we already gave up on */
    }
    for (int i = gap; i >= 1; i--) {
        uint16_t want = (uint16_t) (seq - i);
        uint8_t rebuilt[MAX_IFP];
        int rl;
        if (i <= nsec) {
            deliver(d + sec[i - 1].off, sec[i - 1].len, want);
            packets_recovered++;
        } else if (nfec > 0 && (rl = fec_rebuild(rebuilt, want, seq, fec_span, nfec, fec, fec_len)) > 0) {
            deliver(rebuilt, rl, want);
            packets_recovered_fec++;
        } else {
            packets_lost++;
        }
        if (line_dead) return;
    }
    deliver(d + poff, plen, seq);
    rx_expected = (uint16_t) (seq + 1);
}

static void set_remote(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || (size_t) (colon - spec) >= sizeof opt.remote_host) die("bad remote '%s' (want HOST:PORT)", spec);
    memcpy(opt.remote_host, spec, (size_t) (colon - spec));
    opt.remote_host[colon - spec] = '\0';
    opt.remote_port = atoi(colon + 1);
    memset(&remote, 0, sizeof remote);
    remote.sin_family = AF_INET;
    remote.sin_port = htons((uint16_t) opt.remote_port);
    if (inet_pton(AF_INET, opt.remote_host, &remote.sin_addr) != 1) die("bad remote host '%s' (want an IPv4 address)", opt.remote_host);
    /* A connected socket reports ICMP port unreachable as ECONNREFUSED: the far end hung up. */
    if (sock >= 0 && connect(sock, (struct sockaddr *) &remote, sizeof remote) < 0) die("connect: %s", strerror(errno));
    remote_known = 1;
}

/* Takes in the datagrams that have arrived, up to `upto` in all since the start (-1: all of them). */
static void drain_socket(long upto)
{
    uint8_t d[MAX_DATAGRAM];
    while (upto < 0 || wire_in < upto) {
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        if (sock < 0) return;
        ssize_t n = recvfrom(sock, d, sizeof d, 0, (struct sockaddr *) &from, &fl);
        if (n < 0) {
            if (errno == ECONNREFUSED) { if (!finished) line_down("ECONNREFUSED"); continue; }
            return;           /* EAGAIN: nothing more has arrived */
        }
        wire_in++;
        if (!remote_known) {
            char spec[80];
            snprintf(spec, sizeof spec, "%s:%d", inet_ntoa(from.sin_addr), ntohs(from.sin_port));
            set_remote(spec);
        }
        if (loss_drop(&loss_rx)) { datagrams_rx_dropped++; continue; }
        datagrams_received++;
        if (opt.fail == FAIL_NO_ANSWER || line_dead || finished) continue;
        udptl_receive(d, (int) n);
    }
}

/* ---------------------------------------------------------------- T.30 callbacks */

static const char *compression_name(int encoding)
{
    switch (encoding) {
    case T4_COMPRESSION_ITU_T4_1D: return "mh";
    case T4_COMPRESSION_ITU_T4_2D: return "mr";
    case T4_COMPRESSION_ITU_T6: return "mmr";
    default: return "other";
    }
}

/* Resolution as "XxY" in the dots per inch fax documents use (204x98, 204x196, 408x391 ...). */
static const char *resolution_name(int x, int y, char *buf, size_t size)
{
    int xd = x == T4_X_RESOLUTION_R8 ? 204 : x == T4_X_RESOLUTION_R16 ? 408 : x == T4_X_RESOLUTION_300 ? 300 : (int) (x * 0.0254 + 0.5);
    int yd = y == T4_Y_RESOLUTION_STANDARD ? 98 : y == T4_Y_RESOLUTION_FINE ? 196 : y == T4_Y_RESOLUTION_SUPERFINE ? 391 : (int) (y * 0.0254 + 0.5);
    snprintf(buf, size, "%dx%d", xd, yd);
    return buf;
}

static int phase_b_handler(t30_state_t *s, void *user_data, int fcf)
{
    (void) s;
    (void) user_data;
    if (opt.fail != FAIL_REJECT_CODING) return T30_ERR_OK;
    /* Refuse the other side's choice (as receiver: its DCS; as sender: its DIS) with DCN. */
    if ((!opt.sending && (fcf & 0xfe) == T30_DCS) || (opt.sending && (fcf & 0xfe) == T30_DIS)) {
        emit("{\"event\":\"reject\",\"frame\":\"%s\"}", t30_frametype((uint8_t) fcf));
        return T30_ERR_INCOMPATIBLE;
    }
    return T30_ERR_OK;
}

static int phase_d_handler(t30_state_t *s, void *user_data, int fcf)
{
    t30_stats_t st;
    (void) user_data;
    (void) fcf;
    t30_get_transfer_statistics(s, &st);
    int n = opt.sending ? st.pages_tx : st.pages_rx;
    if (n > pages_done) {
        char res[32];
        pages_done = n;
        image_packets = 0;
        emit("{\"event\":\"page\",\"n\":%d,\"bitRate\":%d,\"ecm\":%s,\"compression\":\"%s\",\"resolution\":\"%s\",\"width\":%d,\"length\":%d,\"badRows\":%d}",
             n, st.bit_rate, st.error_correcting_mode ? "true" : "false", compression_name(st.encoding),
             resolution_name(st.x_resolution, st.y_resolution, res, sizeof res), st.width, st.length, st.bad_rows);
    }
    return T30_ERR_OK;
}

static void phase_e_handler(t30_state_t *s, void *user_data, int status)
{
    t30_stats_t st;
    char res[32], name[200], ident[200];
    (void) user_data;
    t30_get_transfer_statistics(s, &st);
    finished = 1;
    emit("{\"event\":\"done\",\"success\":%s,\"completion\":{\"code\":%d,\"name\":\"%s\"},\"pages\":%d,\"pagesInFile\":%d,"
         "\"bitRate\":%d,\"ecm\":%s,\"compression\":\"%s\",\"resolution\":\"%s\",\"width\":%d,\"remoteIdent\":\"%s\","
         "\"ecmRetries\":%d,\"samples\":%" PRId64 ",\"udptl\":{\"sent\":%ld,\"dropped\":%ld,\"received\":%ld,\"rxDropped\":%ld,\"recovered\":%ld,\"recoveredFec\":%ld,\"lost\":%ld}}",
         status == T30_ERR_OK ? "true" : "false", status, json_str(t30_completion_code_to_str(status), name, sizeof name),
         opt.sending ? st.pages_tx : st.pages_rx, st.pages_in_file, st.bit_rate, st.error_correcting_mode ? "true" : "false",
         compression_name(st.encoding), resolution_name(st.x_resolution, st.y_resolution, res, sizeof res), st.width,
         json_str(t30_get_rx_ident(s), ident, sizeof ident), st.error_correcting_mode_retries, now_samples,
         datagrams_sent, datagrams_dropped, datagrams_received, datagrams_rx_dropped, packets_recovered, packets_recovered_fec, packets_lost);
}

/* Watches T.30 frames both ways: CFR (either way) means training passed and image data is next. */
static void frame_handler(t30_state_t *s, void *user_data, int incoming, const uint8_t msg[], int len)
{
    (void) s;
    (void) user_data;
    (void) incoming;
    if (len >= 3 && (msg[2] & 0xfe) == T30_CFR) cfr_seen = 1;
}

static void log_handler(int level, const char *text)
{
    (void) level;
    fprintf(stderr, "[%8.3f] %s", (double) now_samples / SAMPLE_RATE, text);
}

/* ---------------------------------------------------------------- setup */

static int parse_list(const char *arg, const char *const names[], const int bits[], const char *what)
{
    int mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int i;
        for (i = 0; names[i] && strcasecmp(names[i], tok) != 0; i++) ;
        if (!names[i]) die("unknown %s '%s'", what, tok);
        mask |= bits[i];
    }
    return mask;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: t38peer --role send|receive --tiff FILE [--local PORT] [--remote HOST:PORT]\n"
            "               [--ecm 0|1] [--redundancy N | --fec SPAN:ENTRIES] [--loss PCT] [--loss-rx PCT] [--max-burst N]\n"
            "               [--seed S] [--ident ID]\n"
            "               [--max-rate 14400|12000|9600|7200|4800|2400]\n"
            "               [--allow-compression mh,mr,mmr] [--allow-resolution standard,fine,superfine,r16]\n"
            "               [--fail no-answer|hangup-mid-page|silent-mid-page|reject-coding|ftt-always]\n"
            "               [--fail-page N] [--fail-after PACKETS] [--t38-version 0-3] [--substep SAMPLES] [--log]\n");
    exit(2);
}

static void parse_args(int argc, char **argv)
{
    static const char *const comp_names[] = { "mh", "mr", "mmr", NULL };
    static const int comp_bits[] = { T30_SUPPORT_T4_1D_COMPRESSION, T30_SUPPORT_T4_2D_COMPRESSION, T30_SUPPORT_T6_COMPRESSION };
    static const char *const res_names[] = { "standard", "fine", "superfine", "r16", NULL };
    static const int res_bits[] = { T30_SUPPORT_STANDARD_RESOLUTION, T30_SUPPORT_FINE_RESOLUTION, T30_SUPPORT_SUPERFINE_RESOLUTION,
                                    T30_SUPPORT_R16_RESOLUTION };
    static const char *const fail_names[] = { "none", "no-answer", "hangup-mid-page", "silent-mid-page", "reject-coding", "ftt-always", NULL };
    const char *remote_arg = NULL;

    opt.sending = -1;
    opt.ecm = 1;
    opt.redundancy = 3;
    opt.seed = 1;
    opt.max_rate = 14400;
    opt.compressions = T30_SUPPORT_T4_1D_COMPRESSION | T30_SUPPORT_T4_2D_COMPRESSION | T30_SUPPORT_T6_COMPRESSION;
    opt.resolutions = T30_SUPPORT_STANDARD_RESOLUTION | T30_SUPPORT_FINE_RESOLUTION | T30_SUPPORT_SUPERFINE_RESOLUTION | T30_SUPPORT_R16_RESOLUTION;
    opt.fail_page = 1;
    opt.fail_after = 20;
    opt.substep = 40;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE() do { if (!v) die("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "--role")) { TAKE(); if (!strcmp(v, "send")) opt.sending = 1; else if (!strcmp(v, "receive")) opt.sending = 0; else die("--role send|receive"); }
        else if (!strcmp(a, "--tiff")) { TAKE(); opt.tiff = v; }
        else if (!strcmp(a, "--local")) { TAKE(); opt.local_port = atoi(v); }
        else if (!strcmp(a, "--remote")) { TAKE(); remote_arg = v; }
        else if (!strcmp(a, "--ecm")) { TAKE(); opt.ecm = atoi(v) != 0; }
        else if (!strcmp(a, "--redundancy")) { TAKE(); opt.redundancy = atoi(v); if (opt.redundancy < 0 || opt.redundancy > MAX_REDUNDANCY - 1) die("--redundancy 0..%d", MAX_REDUNDANCY - 1); }
        else if (!strcmp(a, "--loss")) { TAKE(); opt.loss_pct = atof(v); if (opt.loss_pct < 0 || opt.loss_pct > 100) die("--loss 0..100"); }
        else if (!strcmp(a, "--fec")) {
            TAKE();
            if (sscanf(v, "%d:%d", &opt.fec_span, &opt.fec_entries) != 2 || opt.fec_span < 1 || opt.fec_entries < 1 || opt.fec_span * opt.fec_entries > 128)
                die("--fec SPAN:ENTRIES, span × entries at most 128");
        }
        else if (!strcmp(a, "--loss-rx")) { TAKE(); opt.loss_rx_pct = atof(v); if (opt.loss_rx_pct < 0 || opt.loss_rx_pct > 100) die("--loss-rx 0..100"); }
        else if (!strcmp(a, "--max-burst")) { TAKE(); opt.max_burst = atoi(v); }
        else if (!strcmp(a, "--seed")) { TAKE(); opt.seed = (uint32_t) strtoul(v, NULL, 10); }
        else if (!strcmp(a, "--ident")) { TAKE(); opt.ident = v; }
        else if (!strcmp(a, "--max-rate")) { TAKE(); opt.max_rate = atoi(v); }
        else if (!strcmp(a, "--allow-compression")) { TAKE(); opt.compressions = parse_list(v, comp_names, comp_bits, "compression"); }
        else if (!strcmp(a, "--allow-resolution")) { TAKE(); opt.resolutions = parse_list(v, res_names, res_bits, "resolution"); }
        else if (!strcmp(a, "--fail")) { TAKE(); int k; for (k = 0; fail_names[k] && strcmp(fail_names[k], v); k++) ; if (!fail_names[k]) die("unknown --fail '%s'", v); opt.fail = (enum fail_mode) k; }
        else if (!strcmp(a, "--fail-page")) { TAKE(); opt.fail_page = atoi(v); }
        else if (!strcmp(a, "--fail-after")) { TAKE(); opt.fail_after = atoi(v); }
        else if (!strcmp(a, "--t38-version")) { TAKE(); opt.t38_version = atoi(v); if (opt.t38_version < 0 || opt.t38_version > 3) die("--t38-version 0..3"); }
        else if (!strcmp(a, "--substep")) { TAKE(); opt.substep = atoi(v); if (opt.substep < 1) die("--substep must be >= 1"); }
        else if (!strcmp(a, "--log")) opt.log = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
        else die("unknown option '%s'", a);
#undef TAKE
    }
    if (opt.sending < 0 || !opt.tiff) usage();
    /* MH is every fax machine's baseline (T.30 Table 2): keep it, as spandsp does not clear it either. */
    opt.compressions |= T30_SUPPORT_T4_1D_COMPRESSION;
    for (int i = 0; i < HIST; i++) rx_hist_seq[i] = -1;
    loss_init(&loss_tx, opt.loss_pct, opt.seed);
    loss_init(&loss_rx, opt.loss_rx_pct, opt.seed ^ 0x5bd1e995u);
    sock = socket(AF_INET, SOCK_DGRAM, 0);
    if (sock < 0) die("socket: %s", strerror(errno));
    int big = 1 << 20;
    setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    struct sockaddr_in local = { .sin_family = AF_INET, .sin_port = htons((uint16_t) opt.local_port) };
    local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(sock, (struct sockaddr *) &local, sizeof local) < 0) die("bind 127.0.0.1:%d: %s", opt.local_port, strerror(errno));
    socklen_t ll = sizeof local;
    getsockname(sock, (struct sockaddr *) &local, &ll);
    opt.local_port = ntohs(local.sin_port);
    fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
    if (remote_arg) set_remote(remote_arg);
}

static void setup_terminal(void)
{
    term = t38_terminal_init(NULL, opt.sending, tx_packet_handler, NULL);
    if (!term) die("t38_terminal_init failed");
    t30 = t38_terminal_get_t30_state(term);
    t38_core_state_t *core = t38_terminal_get_t38_core_state(term);
    t38_set_t38_version(core, opt.t38_version);
    t38_terminal_set_config(term, 0); /* paced, as over UDP */

    int modems = T30_SUPPORT_V27TER;
    if (opt.max_rate >= 7200) modems |= T30_SUPPORT_V29;
    if (opt.max_rate >= 12000) modems |= T30_SUPPORT_V17;
    t30_set_supported_modems(t30, modems);
    t38_set_fastest_image_data_rate(core, opt.max_rate);
    t30_set_ecm_capability(t30, opt.ecm);
    t30_set_supported_compressions(t30, opt.compressions);
    t30_set_supported_resolutions(t30, opt.resolutions);
    t30_set_supported_image_sizes(t30, T30_SUPPORT_215MM_WIDTH | T30_SUPPORT_255MM_WIDTH | T30_SUPPORT_303MM_WIDTH
                                         | T30_SUPPORT_UNLIMITED_LENGTH | T30_SUPPORT_A4_LENGTH | T30_SUPPORT_B4_LENGTH
                                         | T30_SUPPORT_US_LETTER_LENGTH | T30_SUPPORT_US_LEGAL_LENGTH);
    t30_set_tx_ident(t30, opt.ident ? opt.ident : opt.sending ? "SPANDSP SEND" : "SPANDSP RECV");
    if (opt.sending) t30_set_tx_file(t30, opt.tiff, -1, -1);
    else {
        t30_set_rx_file(t30, opt.tiff, -1);
        t30_set_rx_encoding(t30, T4_COMPRESSION_ITU_T6);
    }
    t30_set_phase_b_handler(t30, phase_b_handler, NULL);
    t30_set_phase_d_handler(t30, phase_d_handler, NULL);
    t30_set_phase_e_handler(t30, phase_e_handler, NULL);
    t30_set_real_time_frame_handler(t30, frame_handler, NULL);
    if (opt.log) {
        int level = SPAN_LOG_SHOW_SEVERITY | SPAN_LOG_SHOW_PROTOCOL | SPAN_LOG_FLOW;
        logging_state_t *ls[] = { t38_terminal_get_logging_state(term), t30_get_logging_state(t30), t38_core_get_logging_state(core) };
        for (int i = 0; i < 3; i++) {
            span_log_set_level(ls[i], level);
            span_log_set_message_handler(ls[i], log_handler);
        }
    }
}

/* ---------------------------------------------------------------- main loop */

static void end_if_pending(void)
{
    if (terminate_pending && !finished) {
        terminate_pending = 0;
        t30_terminate(t30);
    }
}

/* The far end said it has sent `expect` datagrams in all: take in exactly those, waiting (in real
   time, briefly) for the kernel to hand over any still on their way. Later ones, sent by the far
   end while this step runs, wait for the next step: what a step sees never depends on
   scheduling. */
static void take_datagrams(long expect)
{
    for (int waited_ms = 0; sock >= 0 && wire_in < expect; waited_ms++) {
        struct pollfd p = { .fd = sock, .events = POLLIN };
        if (waited_ms >= 5000) {
            emit("{\"event\":\"error\",\"message\":\"barrier: %ld of %ld datagrams arrived\"}", wire_in, expect);
            return;
        }
        if (poll(&p, 1, 1) > 0) drain_socket(expect);
    }
}

static void tick(long samples, long expect)
{
    if (expect >= 0) take_datagrams(expect);
    else drain_socket(-1);
    end_if_pending();
    for (long left = samples; left > 0;) {
        int step = left < opt.substep ? (int) left : opt.substep;
        now_samples += step;
        left -= step;
        if (opt.fail == FAIL_NO_ANSWER || line_dead || finished) continue;
        t38_terminal_send_timeout(term, step);
        end_if_pending();
    }
}

int main(int argc, char **argv)
{
    char line[256];
    parse_args(argc, argv);
    TIFFSetWarningHandler(NULL);
    setup_terminal();
    emit("{\"event\":\"ready\",\"port\":%d,\"role\":\"%s\",\"version\":\"%s\"}", opt.local_port, opt.sending ? "send" : "receive",
         SPANDSP_RELEASE_DATETIME_STRING);
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "tick ", 5)) {
            char *after_n, *after_m;
            long n = strtol(line + 5, &after_n, 10);
            long expect = strtol(after_n, &after_m, 10);
            if (n < 0 || expect < 0) die("tick needs sample and datagram counts >= 0");
            if (after_m == after_n) expect = -1; /* no M: take in whatever has arrived */
            tick(n, expect);
            emit("ok %ld", wire_out);
        } else if (!strncmp(line, "remote ", 7)) {
            line[strcspn(line, "\r\n")] = '\0';
            set_remote(line + 7);
            emit("ok %ld", wire_out);
        } else if (!strncmp(line, "quit", 4)) {
            break;
        } else {
            line[strcspn(line, "\r\n")] = '\0';
            char esc[600];
            emit("{\"event\":\"error\",\"message\":\"unknown command '%s'\"}", json_str(line, esc, sizeof esc));
        }
    }
    emit("{\"event\":\"quit\",\"finished\":%s,\"samples\":%" PRId64 "}", finished ? "true" : "false", now_samples);
    if (term) t38_terminal_free(term);
    if (sock >= 0) close(sock);
    return 0;
}
