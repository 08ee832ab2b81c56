/*
 * fax-peer: spandsp's whole fax terminal (fax_state_t: T.30 + the V.21/V.27ter/V.29/V.17 modems
 * + CNG/CED) as a test peer over an audio line, and the recorder of faxstack's reference
 * sessions. Built on libspandsp's public API (Debian libspandsp-dev 0.0.6) only.
 *
 * USAGE
 *   fax-peer send FILE.tif    [T.30 options] [line options] TRANSPORT
 *   fax-peer receive OUT.tif  [T.30 options] [line options] TRANSPORT
 *   fax-peer record-audio OUT.wav --send FILE.tif --receive OUT.tif [T.30 options] [--tx-level DBM0] [--noise DBM0] [--seed N]
 *   fax-peer record-t38 OUT.pcap --send FILE.tif --receive OUT.tif [T.30 options] [--redundancy 0..2]
 *
 * `send` is the calling party (it has a document), `receive` the answering party.
 *
 * T.30 options (each side's own capabilities; what is used is negotiated):
 *   --ecm 0|1               offer/use error correction mode (default 1)
 *   --modems LIST           v27ter,v29,v17 (default all three)
 *   --compression LIST      mh,mr,mmr (default all; MH, T.30's baseline, is always kept)
 *   --resolution LIST       standard,fine,superfine,r16 (default all)
 *   --ident TEXT            TSI/CSI (default "+15550100" sending, "+15550199" receiving)
 *   --max-seconds S         give up (t30_terminate) after S s of simulated time (default 300)
 *   --tail-ms MS            keep the line up this long after phase E (default 500)
 *   --log                   spandsp's flow log on stderr, "[  12.340 who] text"
 * Line options (the audio spandsp sends and receives; dBm0 as spandsp counts it, 0 dBm0 =
 * 3.14 dB below a full-scale µ-law sine):
 *   --tx-level DBM0         spandsp's modems send at -14 dBm0, CNG/CED at -11 (0.0.6 has no API
 *                           to change it): everything it sends is scaled by DBM0 + 14 dB
 *   --tx-noise DBM0         add white Gaussian noise (spandsp awgn) to what spandsp sends
 *   --rx-noise DBM0         ... to what spandsp receives, before fax_rx
 *   --seed N                seed of the noise generators (default 1)
 * Transports (160 samples = 20 ms per frame):
 *   --udp pcm|pcmu|pcma --local [HOST:]PORT [--remote HOST:PORT] [--lockstep] [--first|--no-first]
 *       pcm: one datagram = 160 samples raw s16le, no header. pcmu/pcma: RTP (RFC 3550: 12-octet
 *       header, payload type 0/8, sequence number +1 and timestamp +160 per datagram, fixed SSRC,
 *       marker on the first) with 160 G.711 octets. Without --remote the far end is latched from
 *       the first datagram. PORT 0 binds any free port; the bound address is the first line on
 *       stderr: "listening HOST:PORT".
 *       --lockstep: every datagram received is answered with exactly one (its 160 samples go to
 *       fax_rx, 160 from fax_tx go back). The first side (by default the sender; --first and
 *       --no-first override) sends the first frame, and sends another whenever nothing arrives
 *       for 2 s of real time ("stalls" in the result). Time is the count of frames, never the
 *       wall clock. The first side stops when its tail (--tail-ms) is over; the other answers
 *       as long as frames come, and stops 100 ms of real time after the last one once its own
 *       call is over (or after 3 s without one before: the first side has gone).
 *       Without --lockstep: real time, a frame every 20 ms (clock_nanosleep on an absolute
 *       CLOCK_MONOTONIC deadline); frames received go through a FIFO of at most 50 (1 s, as a
 *       gateway's jitter buffer holds: a peer starved by a loaded machine wakes to a burst of
 *       frames, and must not drop the oldest of them), an empty FIFO is fax_rx_fillin.
 *   --stdio
 *       lockstep over stdin/stdout: raw s16le blocks of 160 samples in, one block out per block
 *       in (the first side writes one block first). The result line then goes to stderr.
 *   --result FILE           also write the result line to FILE
 *
 * RESULT: one JSON line on stdout at the end (stderr with --stdio):
 *   {"completion":0,"completionText":"OK","pages":1,"bitRate":14400,"modulation":"V.17","ecm":true,
 *    "compression":"mmr","resolution":{"x":204,"y":196},"width":1728,"length":300,"badRows":0,
 *    "ecmRetries":0,"remoteIdent":"+15550199","role":"send","dis":"HEX","dcs":"HEX","samples":N,
 *    "transport":{"sent":N,"received":N,"stalls":0,"bad":0,"fillins":0,"dropped":0}}
 * (fillins: real-time ticks that found the FIFO empty once a frame had come; dropped: frames the
 * full FIFO let go)
 * completion is spandsp's T.30 completion code (T30_ERR_*; 0 = OK), dis/dcs the frames (address,
 * control, FCF, FIF) as spandsp's real-time frame handler saw them. Exit status 0 when the call
 * succeeded, 1 when not, 2 on bad usage. When the far end goes away before phase E
 * (ECONNREFUSED, EOF, silence), spandsp hears silence for up to 60 s of simulated time, so that
 * its own timers give the completion code.
 *
 * RECORDERS: both parties in one process, connected back to back, deterministic.
 *   record-audio: two fax_state_t; each 20 ms step both transmit, the audio (scaled by
 *     --tx-level, plus --noise: one awgn per direction) passes a G.711 µ-law coder, and the
 *     decoded samples are what the other receives. OUT.wav: 8000 Hz, 2 channels of µ-law (format tag 7), channel 0 = what the
 *     caller sent, channel 1 = what the answerer sent, exactly as the other side heard it.
 *   record-t38: two t38_terminal_state_t, advanced 5 ms (40 samples) at a time; every IFP packet
 *     (each of t38_core's repeats its own) becomes a UDPTL packet (T.38 9.1: sequence number,
 *     primary IFP, secondary-ifp-packets with the previous --redundancy packets) in an IPv4/UDP
 *     datagram, caller 127.0.0.1:40000, answerer 127.0.0.2:40002, written to a classic pcap
 *     (LINKTYPE_RAW) stamped 2024-01-01T00:00:00Z + the virtual time. The receiving terminal is
 *     fed from the datagram's primary IFP in the following step.
 *   Both print {"caller":RESULT,"answerer":RESULT,"samples":N,"packets":N,"spandsp":RELEASE,
 *   "frames":[...]}, frames being every T.30 frame as received: {"ms","from","fcf","hex"}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <tiffio.h>
#include <spandsp.h>
#include <spandsp/version.h>

#define BLOCK 160               /* samples per frame: 20 ms */
#define SAMPLE_RATE 8000
#define SPANDSP_TX_DBM0 (-14.0) /* the level of spandsp 0.0.6's fax modems */
#define MAX_DATAGRAM 2048
#define MAX_FRAMES 512
#define MAX_IFP 1024

/* ---------------------------------------------------------------- options */

enum mode { MODE_SEND, MODE_RECEIVE, MODE_RECORD_AUDIO, MODE_RECORD_T38 };
enum transport { TRANSPORT_NONE, TRANSPORT_UDP, TRANSPORT_STDIO };
enum codec { CODEC_PCM, CODEC_PCMU, CODEC_PCMA };

static struct {
    enum mode mode;
    const char *file;           /* send/receive: the document; record modes: the output */
    const char *send_file, *receive_file;
    int ecm, modems, compressions, resolutions;
    const char *ident;
    int max_seconds, tail_ms, log;
    double tx_level, tx_noise, rx_noise, noise; /* NAN when not given */
    int seed;
    enum transport transport;
    enum codec codec;
    char local_host[64];
    int local_port;
    const char *remote;
    int lockstep, first;        /* first: -1 = by role */
    const char *result_file;
    int redundancy;
} opt;

static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("fax-peer: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* ---------------------------------------------------------------- JSON */

struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) die("formatting failed");
        if ((size_t) n < room) { b->len += (size_t) n; return; }
        b->cap = (b->cap + (size_t) n + 1) * 2;
        if (!(b->p = realloc(b->p, b->cap))) die("out of memory");
    }
}

/* A JSON string, quoted, with the escapes an ident or a completion text can need. */
static void put_str(struct buf *b, const char *s)
{
    put(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') put(b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) put(b, "\\u%04x", c);
        else put(b, "%c", c);
    }
    put(b, "\"");
}

static void put_hex(struct buf *b, const uint8_t *p, int len)
{
    put(b, "\"");
    for (int i = 0; i < len; i++) put(b, "%02x", p[i]);
    put(b, "\"");
}

/* ---------------------------------------------------------------- one fax terminal */

struct frame_rec {
    int64_t samples;
    const char *from;
    int len;
    uint8_t msg[256];
};

static struct frame_rec frames[MAX_FRAMES];
static int n_frames;

struct end {
    const char *name;           /* "caller" / "answerer": for logs and the frame list */
    int calling, sending;
    fax_state_t *fax;           /* audio terminal, or */
    t38_terminal_state_t *t38;  /* T.38 terminal */
    t30_state_t *t30;
    int64_t samples;            /* simulated time */
    int done, status;
    int64_t done_at;
    uint8_t dis[64], dcs[64];
    int dis_len, dcs_len;
    const char *peer_name;
    int last_length;            /* rows of the last page, as phase D saw it */
};

static const struct end *log_end; /* whose spandsp call is running, for the log prefix */

static void log_handler(int level, const char *text)
{
    (void) level;
    fprintf(stderr, "[%9.3f %-8s] %s", log_end ? (double) log_end->samples / SAMPLE_RATE : 0.0, log_end ? log_end->name : "", text);
}

static void phase_e_handler(t30_state_t *s, void *user_data, int status)
{
    struct end *e = user_data;
    (void) s;
    if (e->done) return;
    e->done = 1;
    e->status = status;
    e->done_at = e->samples;
}

/* The statistics are complete at phase D; by phase E a receiver's ECM page length is reset. */
static int phase_d_handler(t30_state_t *s, void *user_data, int fcf)
{
    struct end *e = user_data;
    t30_stats_t st;
    (void) fcf;
    t30_get_transfer_statistics(s, &st);
    if (st.length > 0) e->last_length = st.length;
    return T30_ERR_OK;
}

static void frame_handler(t30_state_t *s, void *user_data, int incoming, const uint8_t msg[], int len)
{
    struct end *e = user_data;
    (void) s;
    if (len < 3) return;
    int fcf = msg[2] & 0xfe;
    int n = len < 64 ? len : 64;
    /* DIS goes answerer → caller and DCS the other way: each side sees both, one each way. */
    if (fcf == T30_DIS) { memcpy(e->dis, msg, (size_t) n); e->dis_len = n; }
    if (fcf == T30_DCS) { memcpy(e->dcs, msg, (size_t) n); e->dcs_len = n; }
    if (incoming && n_frames < MAX_FRAMES) {
        struct frame_rec *f = &frames[n_frames++];
        f->samples = e->samples;
        f->from = e->peer_name;
        f->len = len < 256 ? len : 256;
        memcpy(f->msg, msg, (size_t) f->len);
    }
}

/* The T.30 settings shared by both kinds of terminal. */
static void setup_t30(struct end *e, const char *tiff)
{
    t30_state_t *t = e->t30;
    t30_set_supported_modems(t, opt.modems);
    t30_set_ecm_capability(t, opt.ecm);
    t30_set_supported_compressions(t, opt.compressions);
    t30_set_supported_resolutions(t, opt.resolutions);
    t30_set_supported_image_sizes(t, T30_SUPPORT_215MM_WIDTH | T30_SUPPORT_255MM_WIDTH | T30_SUPPORT_303MM_WIDTH
                                         | T30_SUPPORT_UNLIMITED_LENGTH | T30_SUPPORT_A4_LENGTH | T30_SUPPORT_B4_LENGTH
                                         | T30_SUPPORT_US_LETTER_LENGTH | T30_SUPPORT_US_LEGAL_LENGTH);
    t30_set_tx_ident(t, opt.ident ? opt.ident : e->sending ? "+15550100" : "+15550199");
    if (e->sending) t30_set_tx_file(t, tiff, -1, -1);
    else {
        t30_set_rx_file(t, tiff, -1);
        t30_set_rx_encoding(t, T4_COMPRESSION_ITU_T6);
    }
    t30_set_phase_d_handler(t, phase_d_handler, e);
    t30_set_phase_e_handler(t, phase_e_handler, e);
    t30_set_real_time_frame_handler(t, frame_handler, e);
    if (opt.log) {
        logging_state_t *ls = t30_get_logging_state(t);
        span_log_set_level(ls, SPAN_LOG_SHOW_SEVERITY | SPAN_LOG_SHOW_PROTOCOL | SPAN_LOG_FLOW);
        span_log_set_message_handler(ls, log_handler);
    }
}

static void log_on(logging_state_t *ls)
{
    if (!opt.log) return;
    span_log_set_level(ls, SPAN_LOG_SHOW_SEVERITY | SPAN_LOG_SHOW_PROTOCOL | SPAN_LOG_FLOW);
    span_log_set_message_handler(ls, log_handler);
}

static void init_audio_end(struct end *e, int calling, int sending, const char *tiff)
{
    e->calling = calling;
    e->sending = sending;
    if (!(e->fax = fax_init(NULL, calling))) die("fax_init failed");
    e->t30 = fax_get_t30_state(e->fax);
    fax_set_transmit_on_idle(e->fax, 1);
    setup_t30(e, tiff);
    log_on(fax_get_logging_state(e->fax));
}

static const char *compression_name(int encoding)
{
    switch (encoding) {
    case T4_COMPRESSION_ITU_T4_1D: return "mh";
    case T4_COMPRESSION_ITU_T4_2D: return "mr";
    case T4_COMPRESSION_ITU_T6: return "mmr";
    default: return "";
    }
}

/* The modulation named by DCS bits 11-14 (T.30 Table 2): bit 14 V.17, else bit 11 V.29, else
   V.27 ter. spandsp keeps FIF bit n in octet 3 + (n-1)/8, bit (n-1)%8. */
static const char *modulation_name(const struct end *e)
{
    if (e->dcs_len < 5) return "";
    if (e->dcs[4] & 0x20) return "V.17";
    if (e->dcs[4] & 0x04) return "V.29";
    return "V.27ter";
}

/* The result object of one end (no trailing newline). */
static void put_result(struct buf *b, const struct end *e)
{
    t30_stats_t st;
    t30_get_transfer_statistics(e->t30, &st);
    int status = e->done ? e->status : T30_ERR_CALLDROPPED;
    put(b, "{\"completion\":%d,\"completionText\":", status);
    put_str(b, t30_completion_code_to_str(status));
    put(b, ",\"pages\":%d,\"bitRate\":%d,\"modulation\":\"%s\",\"ecm\":%s,\"compression\":\"%s\"", e->sending ? st.pages_tx : st.pages_rx,
        st.bit_rate, modulation_name(e), st.error_correcting_mode ? "true" : "false", compression_name(st.encoding));
    put(b, ",\"resolution\":{\"x\":%d,\"y\":%d},\"width\":%d,\"length\":%d,\"badRows\":%d,\"ecmRetries\":%d,\"remoteIdent\":",
        (int) lround(st.x_resolution * 0.0254), (int) lround(st.y_resolution * 0.0254), st.width, st.length > 0 ? st.length : e->last_length, st.bad_rows,
        st.error_correcting_mode_retries);
    put_str(b, t30_get_rx_ident(e->t30));
    put(b, ",\"role\":\"%s\",\"dis\":", e->sending ? "send" : "receive");
    put_hex(b, e->dis, e->dis_len);
    put(b, ",\"dcs\":");
    put_hex(b, e->dcs, e->dcs_len);
    put(b, ",\"samples\":%" PRId64, e->samples);
}

static int tail_over(const struct end *e)
{
    return e->done && e->samples >= e->done_at + (int64_t) opt.tail_ms * SAMPLE_RATE / 1000;
}

/* Past --max-seconds of simulated time the call is dropped (phase E: "call dropped"). */
static void enforce_limit(struct end *e)
{
    if (!e->done && e->samples >= (int64_t) opt.max_seconds * SAMPLE_RATE) {
        log_end = e;
        t30_terminate(e->t30);
        if (!e->done) phase_e_handler(e->t30, e, T30_ERR_CALLDROPPED);
    }
}

/* ---------------------------------------------------------------- the audio line of a peer */

static struct end me;
static awgn_state_t *tx_awgn, *rx_awgn;
static float tx_gain = 1.0f;
static g711_state_t *g711;
static struct { uint16_t seq; uint32_t ts, ssrc; int sent; } rtp;
static long frames_sent, frames_received, stalls, bad_frames;
/* Real time: ticks with the FIFO empty once a frame had come (fax_rx_fillin), frames the full FIFO dropped. */
static long fillins, fifo_dropped;

static int16_t clip(float v)
{
    return v > 32767.0f ? 32767 : v < -32768.0f ? -32768 : (int16_t) lrintf(v);
}

/* 160 received samples (NULL: a frame that never came) into spandsp. */
static void line_rx(const int16_t in[BLOCK])
{
    log_end = &me;
    if (in) {
        int16_t amp[BLOCK];
        for (int i = 0; i < BLOCK; i++) amp[i] = rx_awgn ? clip((float) in[i] + awgn(rx_awgn)) : in[i];
        fax_rx(me.fax, amp, BLOCK);
    } else {
        fax_rx_fillin(me.fax, BLOCK);
    }
    me.samples += BLOCK;
    enforce_limit(&me);
}

/* 160 samples out of spandsp, with the line options applied. */
static void line_tx(int16_t out[BLOCK])
{
    log_end = &me;
    int n = fax_tx(me.fax, out, BLOCK);
    if (n < 0) n = 0;
    memset(out + n, 0, sizeof(int16_t) * (size_t) (BLOCK - n));
    for (int i = 0; i < BLOCK; i++) {
        float v = (float) out[i] * tx_gain;
        if (tx_awgn) v += awgn(tx_awgn);
        out[i] = clip(v);
    }
}

/* A frame as it goes on the wire: raw s16le, or an RTP packet of G.711. */
static int wire_pack(const int16_t amp[BLOCK], uint8_t *d)
{
    if (opt.codec == CODEC_PCM) {
        for (int i = 0; i < BLOCK; i++) { d[2 * i] = (uint8_t) amp[i]; d[2 * i + 1] = (uint8_t) ((uint16_t) amp[i] >> 8); }
        return 2 * BLOCK;
    }
    /* RFC 3550 5.1: V=2, no padding/extension/CSRC, marker on the first packet. */
    d[0] = 0x80;
    d[1] = (uint8_t) ((rtp.sent ? 0 : 0x80) | (opt.codec == CODEC_PCMU ? 0 : 8));
    d[2] = (uint8_t) (rtp.seq >> 8); d[3] = (uint8_t) rtp.seq;
    d[4] = (uint8_t) (rtp.ts >> 24); d[5] = (uint8_t) (rtp.ts >> 16); d[6] = (uint8_t) (rtp.ts >> 8); d[7] = (uint8_t) rtp.ts;
    d[8] = (uint8_t) (rtp.ssrc >> 24); d[9] = (uint8_t) (rtp.ssrc >> 16); d[10] = (uint8_t) (rtp.ssrc >> 8); d[11] = (uint8_t) rtp.ssrc;
    g711_encode(g711, d + 12, amp, BLOCK);
    rtp.seq++;
    rtp.ts += BLOCK;
    rtp.sent = 1;
    return 12 + BLOCK;
}

/* 0 and the 160 samples of a datagram, or -1 when it is not a frame of our format. */
static int wire_unpack(const uint8_t *d, int n, int16_t amp[BLOCK])
{
    if (opt.codec == CODEC_PCM) {
        if (n != 2 * BLOCK) return -1;
        for (int i = 0; i < BLOCK; i++) amp[i] = (int16_t) (d[2 * i] | (d[2 * i + 1] << 8));
        return 0;
    }
    if (n < 12 || (d[0] >> 6) != 2 || (d[1] & 0x7f) != (opt.codec == CODEC_PCMU ? 0 : 8)) return -1;
    int off = 12 + 4 * (d[0] & 0x0f), end = n;
    if (d[0] & 0x10) {            /* header extension: 4 octets + length in words */
        if (off + 4 > n) return -1;
        off += 4 + 4 * ((d[off + 2] << 8) | d[off + 3]);
    }
    if (d[0] & 0x20) end -= d[n - 1]; /* padding */
    if (end - off != BLOCK) return -1;
    g711_decode(g711, amp, d + off, BLOCK);
    return 0;
}

/* ---------------------------------------------------------------- UDP */

static int sock = -1;
static int remote_known, peer_gone;

static void parse_host_port(const char *spec, struct sockaddr_in *sa, int need_host)
{
    char host[64] = "0.0.0.0";
    const char *colon = strrchr(spec, ':');
    const char *port = spec;
    if (colon) {
        if ((size_t) (colon - spec) >= sizeof host) die("bad address '%s'", spec);
        memcpy(host, spec, (size_t) (colon - spec));
        host[colon - spec] = '\0';
        port = colon + 1;
    } else if (need_host) {
        die("bad address '%s' (want HOST:PORT)", spec);
    }
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t) atoi(port));
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) die("bad IPv4 address '%s'", host);
}

/* A connected socket reports the ICMP port unreachable of a far end gone as ECONNREFUSED. */
static void connect_remote(const struct sockaddr_in *sa)
{
    if (connect(sock, (const struct sockaddr *) sa, sizeof *sa) < 0) die("connect: %s", strerror(errno));
    remote_known = 1;
}

static void udp_open(void)
{
    struct sockaddr_in local;
    char spec[96];
    if (opt.local_port < 0) die("--udp needs --local [HOST:]PORT");
    snprintf(spec, sizeof spec, "%s:%d", opt.local_host, opt.local_port);
    parse_host_port(spec, &local, 1);
    if ((sock = socket(AF_INET, SOCK_DGRAM, 0)) < 0) die("socket: %s", strerror(errno));
    int big = 1 << 20;
    setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    if (bind(sock, (struct sockaddr *) &local, sizeof local) < 0) die("bind %s: %s", spec, strerror(errno));
    socklen_t ll = sizeof local;
    getsockname(sock, (struct sockaddr *) &local, &ll);
    fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
    fprintf(stderr, "listening %s:%d\n", inet_ntoa(local.sin_addr), ntohs(local.sin_port));
    fflush(stderr);
    if (opt.remote) {
        struct sockaddr_in sa;
        parse_host_port(opt.remote, &sa, 1);
        connect_remote(&sa);
    }
}

static void udp_send(const int16_t amp[BLOCK])
{
    uint8_t d[MAX_DATAGRAM];
    int n = wire_pack(amp, d);
    if (!remote_known) return;
    if (send(sock, d, (size_t) n, 0) < 0) {
        if (errno == ECONNREFUSED) peer_gone = 1;
        return;
    }
    frames_sent++;
}

/* One datagram if there is one: 1 with its samples in amp (or NULL-able bad frame: 2), 0 when
   none, -1 when the far end has gone. */
static int udp_recv(int16_t amp[BLOCK])
{
    uint8_t d[MAX_DATAGRAM];
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(sock, d, sizeof d, 0, (struct sockaddr *) &from, &fl);
    if (n < 0) return errno == ECONNREFUSED ? -1 : 0;
    if (!remote_known) connect_remote(&from);
    frames_received++;
    if (wire_unpack(d, (int) n, amp)) { bad_frames++; return 2; }
    return 1;
}

/* After the far end went away with our call still running: silence until phase E or a minute. */
static void run_alone(void)
{
    int16_t in[BLOCK] = { 0 }, out[BLOCK];
    int64_t until = me.samples + 60 * SAMPLE_RATE;
    while (!me.done && me.samples < until) {
        line_rx(in);
        line_tx(out);
    }
    enforce_limit(&me);
    if (!me.done) { log_end = &me; t30_terminate(me.t30); }
}

/* The first side ends the call's audio: it stops once its tail is over; the other answers for as
   long as frames come (after its own phase E, a 100 ms pause means the first side has stopped). */
static int lockstep_over(void)
{
    return opt.first ? tail_over(&me) : 0;
}

static void run_udp_lockstep(void)
{
    int16_t in[BLOCK], out[BLOCK];
    if (opt.first) { line_tx(out); udp_send(out); }
    while (!lockstep_over() && !peer_gone) {
        struct pollfd p = { .fd = sock, .events = POLLIN };
        /* The first side repeats itself after 2 s of silence, so 3 s of it means it has gone. */
        int r = poll(&p, 1, me.done ? 100 : opt.first ? 2000 : 3000);
        if (r == 0) {
            if (me.done || !opt.first) break;
            stalls++;
            line_rx(NULL);
            line_tx(out);
            udp_send(out);
            continue;
        }
        int got = udp_recv(in);
        if (got < 0) { peer_gone = 1; break; }
        if (got == 0) continue;
        line_rx(got == 1 ? in : NULL);
        line_tx(out);
        udp_send(out);
    }
}

static void run_udp_realtime(void)
{
    enum { FIFO = 50 };
    int16_t fifo[FIFO][BLOCK], in[BLOCK], out[BLOCK];
    int head = 0, count = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!tail_over(&me)) {
        int got;
        while ((got = udp_recv(in)) != 0) {
            if (got < 0) continue;   /* far end not (yet) there: keep the line up */
            if (got == 2) memset(in, 0, sizeof in);
            if (count == FIFO) { head = (head + 1) % FIFO; count--; fifo_dropped++; } /* too late: the oldest goes */
            memcpy(fifo[(head + count) % FIFO], in, sizeof in);
            count++;
        }
        if (count) { line_rx(fifo[head]); head = (head + 1) % FIFO; count--; }
        else { if (frames_received) fillins++; line_rx(NULL); }
        line_tx(out);
        udp_send(out);
        next.tv_nsec += 20 * 1000 * 1000;
        if (next.tv_nsec >= 1000 * 1000 * 1000) { next.tv_nsec -= 1000 * 1000 * 1000; next.tv_sec++; }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) ;
    }
}

/* ---------------------------------------------------------------- stdio */

static int read_block(int16_t amp[BLOCK])
{
    uint8_t raw[2 * BLOCK];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = read(0, raw + got, sizeof raw - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t) n;
    }
    for (int i = 0; i < BLOCK; i++) amp[i] = (int16_t) (raw[2 * i] | (raw[2 * i + 1] << 8));
    frames_received++;
    return 0;
}

static int write_block(const int16_t amp[BLOCK])
{
    uint8_t raw[2 * BLOCK];
    size_t put_n = 0;
    for (int i = 0; i < BLOCK; i++) { raw[2 * i] = (uint8_t) amp[i]; raw[2 * i + 1] = (uint8_t) ((uint16_t) amp[i] >> 8); }
    while (put_n < sizeof raw) {
        ssize_t n = write(1, raw + put_n, sizeof raw - put_n);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        put_n += (size_t) n;
    }
    frames_sent++;
    return 0;
}

static void run_stdio(void)
{
    int16_t in[BLOCK], out[BLOCK];
    if (opt.first) { line_tx(out); if (write_block(out)) peer_gone = 1; }
    while (!lockstep_over() && !peer_gone) {
        if (read_block(in)) { peer_gone = 1; break; }
        line_rx(in);
        line_tx(out);
        if (write_block(out)) peer_gone = 1;
    }
}

static int run_peer(void)
{
    struct buf b = { 0 };
    int sending = opt.mode == MODE_SEND;
    me.name = sending ? "send" : "receive";
    me.peer_name = sending ? "receive" : "send";
    init_audio_end(&me, sending, sending, opt.file);
    if (opt.first < 0) opt.first = sending;
    if (opt.codec != CODEC_PCM && !(g711 = g711_init(NULL, opt.codec == CODEC_PCMU ? G711_ULAW : G711_ALAW))) die("g711_init failed");
    /* Stable stream identity and start values, different per role (RFC 3550 asks for random
       ones; a test peer wants runs that repeat). */
    rtp.ssrc = sending ? 0x46415831u : 0x46415832u;
    rtp.seq = sending ? 1000 : 2000;
    rtp.ts = sending ? 160000 : 320000;
    if (opt.transport == TRANSPORT_UDP) {
        udp_open();
        if (opt.lockstep) run_udp_lockstep();
        else run_udp_realtime();
    } else {
        run_stdio();
    }
    if (!me.done) run_alone();
    put_result(&b, &me);
    put(&b, ",\"transport\":{\"sent\":%ld,\"received\":%ld,\"stalls\":%ld,\"bad\":%ld,\"fillins\":%ld,\"dropped\":%ld}}\n", frames_sent, frames_received, stalls, bad_frames, fillins, fifo_dropped);
    FILE *out = opt.transport == TRANSPORT_STDIO ? stderr : stdout;
    fputs(b.p, out);
    fflush(out);
    if (opt.result_file) {
        FILE *f = fopen(opt.result_file, "w");
        if (!f) die("cannot write %s: %s", opt.result_file, strerror(errno));
        fputs(b.p, f);
        fclose(f);
    }
    return me.status == T30_ERR_OK ? 0 : 1;
}

/* ---------------------------------------------------------------- little-endian file writing */

static void le16(uint8_t *p, unsigned v) { p[0] = (uint8_t) v; p[1] = (uint8_t) (v >> 8); }
static void le32(uint8_t *p, uint32_t v) { le16(p, v & 0xffff); le16(p + 2, v >> 16); }
static void be16(uint8_t *p, unsigned v) { p[0] = (uint8_t) (v >> 8); p[1] = (uint8_t) v; }

static void put_frames(struct buf *b)
{
    put(b, ",\"frames\":[");
    for (int i = 0; i < n_frames; i++) {
        const struct frame_rec *f = &frames[i];
        put(b, "%s{\"ms\":%.3f,\"from\":\"%s\",\"fcf\":", i ? "," : "", (double) f->samples / 8.0, f->from);
        put_str(b, t30_frametype(f->msg[2]));
        put(b, ",\"hex\":");
        put_hex(b, f->msg, f->len);
        put(b, "}");
    }
    put(b, "]");
}

static int print_record_result(struct end *a, struct end *b, int64_t samples, long packets)
{
    struct buf out = { 0 };
    put(&out, "{\"caller\":");
    put_result(&out, a);
    put(&out, "},\"answerer\":");
    put_result(&out, b);
    put(&out, "},\"samples\":%" PRId64 ",\"packets\":%ld,\"spandsp\":\"%s\"", samples, packets, SPANDSP_RELEASE_DATETIME_STRING);
    put_frames(&out);
    put(&out, "}\n");
    fputs(out.p, stdout);
    fflush(stdout);
    return a->status == T30_ERR_OK && b->status == T30_ERR_OK ? 0 : 1;
}

/* ---------------------------------------------------------------- record-audio */

/* WAVE with WAVE_FORMAT_MULAW (7): RIFF, fmt (18 octets, cbSize 0), fact (sample frames), data. */
static void wav_header(uint8_t h[58], uint32_t frames_n)
{
    uint32_t data = frames_n * 2;
    memcpy(h, "RIFF", 4); le32(h + 4, 50 + data); memcpy(h + 8, "WAVE", 4);
    memcpy(h + 12, "fmt ", 4); le32(h + 16, 18);
    le16(h + 20, 7); le16(h + 22, 2); le32(h + 24, SAMPLE_RATE); le32(h + 28, SAMPLE_RATE * 2); le16(h + 32, 2); le16(h + 34, 8); le16(h + 36, 0);
    memcpy(h + 38, "fact", 4); le32(h + 42, 4); le32(h + 46, frames_n);
    memcpy(h + 50, "data", 4); le32(h + 54, data);
}

static int run_record_audio(void)
{
    struct end a = { .name = "caller", .peer_name = "answerer" }, b = { .name = "answerer", .peer_name = "caller" };
    g711_state_t *enc = g711_init(NULL, G711_ULAW), *dec = g711_init(NULL, G711_ULAW);
    awgn_state_t *noise_ab = NULL, *noise_ba = NULL;
    uint8_t header[58];
    FILE *wav = fopen(opt.file, "wb");
    if (!wav) die("cannot write %s: %s", opt.file, strerror(errno));
    init_audio_end(&a, 1, 1, opt.send_file);
    init_audio_end(&b, 0, 0, opt.receive_file);
    if (!isnan(opt.noise)) {
        noise_ab = awgn_init_dbm0(NULL, opt.seed, (float) opt.noise);
        noise_ba = awgn_init_dbm0(NULL, opt.seed + 7919, (float) opt.noise);
    }
    wav_header(header, 0);
    fwrite(header, 1, sizeof header, wav);
    uint32_t written = 0;
    while (!(tail_over(&a) && tail_over(&b))) {
        int16_t ta[BLOCK], tb[BLOCK], ra[BLOCK], rb[BLOCK];
        uint8_t ua[BLOCK], ub[BLOCK], both[2 * BLOCK];
        struct end *ends[2] = { &a, &b };
        int16_t *tx[2] = { ta, tb };
        for (int k = 0; k < 2; k++) {
            log_end = ends[k];
            int n = fax_tx(ends[k]->fax, tx[k], BLOCK);
            if (n < 0) n = 0;
            memset(tx[k] + n, 0, sizeof(int16_t) * (size_t) (BLOCK - n));
        }
        for (int i = 0; i < BLOCK; i++) {
            float va = (float) ta[i] * tx_gain, vb = (float) tb[i] * tx_gain;
            if (noise_ab) { va += awgn(noise_ab); vb += awgn(noise_ba); }
            ta[i] = clip(va);
            tb[i] = clip(vb);
        }
        g711_encode(enc, ua, ta, BLOCK);
        g711_encode(enc, ub, tb, BLOCK);
        for (int i = 0; i < BLOCK; i++) { both[2 * i] = ua[i]; both[2 * i + 1] = ub[i]; }
        fwrite(both, 1, sizeof both, wav);
        written += BLOCK;
        g711_decode(dec, rb, ua, BLOCK); /* caller → answerer */
        g711_decode(dec, ra, ub, BLOCK);
        log_end = &a;
        fax_rx(a.fax, ra, BLOCK);
        log_end = &b;
        fax_rx(b.fax, rb, BLOCK);
        a.samples += BLOCK;
        b.samples += BLOCK;
        enforce_limit(&a);
        enforce_limit(&b);
    }
    wav_header(header, written);
    if (fseek(wav, 0, SEEK_SET) || fwrite(header, 1, sizeof header, wav) != sizeof header || fclose(wav)) die("writing %s failed", opt.file);
    return print_record_result(&a, &b, a.samples, 0);
}

/* ---------------------------------------------------------------- record-t38 */

#define T38_STEP 40             /* samples per t38_terminal_send_timeout: 5 ms */
#define PCAP_EPOCH 1704067200u  /* 2024-01-01T00:00:00Z */

struct t38_end {
    struct end e;
    uint8_t ip[4];
    uint16_t port, ip_id, seq;
    uint8_t hist[2][MAX_IFP];   /* the previous IFP packets, for redundancy */
    int hist_len[2];
    struct t38_end *to;
    /* Datagrams on their way to `to`, delivered at its next step. */
    uint8_t queue[256][MAX_DATAGRAM];
    int queue_len[256];
    int queued;
};

static FILE *pcap;
static long packets_written;
static int64_t t38_now;

static uint16_t ip_checksum(const uint8_t *p, int len, uint32_t sum)
{
    for (int i = 0; i + 1 < len; i += 2) sum += (uint32_t) ((p[i] << 8) | p[i + 1]);
    if (len & 1) sum += (uint32_t) (p[len - 1] << 8);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t) ~sum;
}

/* One IPv4/UDP datagram into the capture, stamped with the virtual clock. */
static void pcap_write(struct t38_end *from, const uint8_t *payload, int len)
{
    uint8_t pkt[28 + MAX_DATAGRAM], rec[16];
    int total = 28 + len;
    uint8_t *ip = pkt, *udp = pkt + 20;
    memset(pkt, 0, 28);
    ip[0] = 0x45;
    be16(ip + 2, (unsigned) total);
    be16(ip + 4, from->ip_id++);
    be16(ip + 6, 0x4000);       /* DF */
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, from->ip, 4);
    memcpy(ip + 16, from->to->ip, 4);
    be16(ip + 10, ip_checksum(ip, 20, 0));
    be16(udp, from->port);
    be16(udp + 2, from->to->port);
    be16(udp + 4, (unsigned) (8 + len));
    memcpy(udp + 8, payload, (size_t) len);
    /* UDP checksum over the pseudo-header (addresses, protocol, length) and the datagram. */
    uint32_t pseudo = (uint32_t) ((ip[12] << 8 | ip[13]) + (ip[14] << 8 | ip[15]) + (ip[16] << 8 | ip[17]) + (ip[18] << 8 | ip[19]) + 17 + 8 + len);
    uint16_t ck = ip_checksum(udp, 8 + len, pseudo);
    be16(udp + 6, ck ? ck : 0xffff);
    int64_t us = t38_now * 1000000 / SAMPLE_RATE;
    le32(rec, (uint32_t) (PCAP_EPOCH + us / 1000000));
    le32(rec + 4, (uint32_t) (us % 1000000));
    le32(rec + 8, (uint32_t) total);
    le32(rec + 12, (uint32_t) total);
    fwrite(rec, 1, sizeof rec, pcap);
    fwrite(pkt, 1, (size_t) total, pcap);
    packets_written++;
}

/* PER length determinant (X.691 10.9) for the lengths an IFP packet has. */
static int put_len(uint8_t *b, int len)
{
    if (len < 0x80) { b[0] = (uint8_t) len; return 1; }
    b[0] = (uint8_t) (0x80 | (len >> 8));
    b[1] = (uint8_t) len;
    return 2;
}

/* T.38 9.1 UDPTL packet: seq-number, primary-ifp-packet, error-recovery = secondary-ifp-packets
   (the previous `redundancy` IFP packets, newest first). */
static int udptl_build(struct t38_end *t, const uint8_t *ifp, int len, uint8_t *d)
{
    int n = 0, depth = 0;
    be16(d, t->seq);
    n = 2;
    n += put_len(d + n, len);
    memcpy(d + n, ifp, (size_t) len);
    n += len;
    d[n++] = 0x00;
    for (int i = 0; i < opt.redundancy && i < 2; i++) if (t->hist_len[i] > 0) depth = i + 1;
    n += put_len(d + n, depth);
    for (int i = 0; i < depth; i++) {
        n += put_len(d + n, t->hist_len[i]);
        memcpy(d + n, t->hist[i], (size_t) t->hist_len[i]);
        n += t->hist_len[i];
    }
    memcpy(t->hist[1], t->hist[0], (size_t) t->hist_len[0]);
    t->hist_len[1] = t->hist_len[0];
    memcpy(t->hist[0], ifp, (size_t) len);
    t->hist_len[0] = len;
    t->seq++;
    return n;
}

static int t38_tx_handler(t38_core_state_t *s, void *user_data, const uint8_t *buf, int len, int count)
{
    struct t38_end *t = user_data;
    (void) s;
    if (len > MAX_IFP) die("IFP packet of %d octets", len);
    /* t38_core asks for `count` copies; each is its own UDPTL packet with its own sequence
       number, as the far end's duplicate filter expects. */
    for (int i = 0; i < count; i++) {
        if (t->queued == 256) die("too many datagrams in one step");
        int n = udptl_build(t, buf, len, t->queue[t->queued]);
        t->queue_len[t->queued++] = n;
        pcap_write(t, t->queue[t->queued - 1], n);
    }
    return 0;
}

/* Hands the datagrams `from` sent in the last step to the far terminal: the primary IFP of each (the capture
   has no loss, so redundancy is never needed). */
static void t38_deliver(struct t38_end *from)
{
    t38_core_state_t *core = t38_terminal_get_t38_core_state(from->to->e.t38);
    log_end = &from->to->e;
    for (int i = 0; i < from->queued; i++) {
        const uint8_t *d = from->queue[i];
        int pos = 2, len = d[2];
        if (len & 0x80) { len = ((len & 0x3f) << 8) | d[3]; pos = 4; } else pos = 3;
        t38_core_rx_ifp_packet(core, d + pos, len, (uint16_t) ((d[0] << 8) | d[1]));
    }
    from->queued = 0;
}

static void init_t38_end(struct t38_end *t, int calling, const char *tiff)
{
    t->e.calling = t->e.sending = calling;
    if (!(t->e.t38 = t38_terminal_init(NULL, calling, t38_tx_handler, t))) die("t38_terminal_init failed");
    t->e.t30 = t38_terminal_get_t30_state(t->e.t38);
    t38_core_state_t *core = t38_terminal_get_t38_core_state(t->e.t38);
    t38_set_t38_version(core, 0);
    t38_terminal_set_config(t->e.t38, 0); /* paced, as over UDP */
    t38_set_fastest_image_data_rate(core, opt.modems & T30_SUPPORT_V17 ? 14400 : opt.modems & T30_SUPPORT_V29 ? 9600 : 4800);
    setup_t30(&t->e, tiff);
    log_on(t38_terminal_get_logging_state(t->e.t38));
    log_on(t38_core_get_logging_state(core));
}

static int run_record_t38(void)
{
    static struct t38_end a, b;
    uint8_t gh[24];
    a.e.name = "caller"; a.e.peer_name = "answerer";
    b.e.name = "answerer"; b.e.peer_name = "caller";
    memcpy(a.ip, (uint8_t[]) { 127, 0, 0, 1 }, 4);
    memcpy(b.ip, (uint8_t[]) { 127, 0, 0, 2 }, 4);
    a.port = 40000;
    b.port = 40002;
    a.to = &b;
    b.to = &a;
    if (!(pcap = fopen(opt.file, "wb"))) die("cannot write %s: %s", opt.file, strerror(errno));
    /* Classic libpcap header: magic (microseconds), 2.4, GMT, sigfigs 0, snaplen, LINKTYPE_RAW. */
    le32(gh, 0xa1b2c3d4u); le16(gh + 4, 2); le16(gh + 6, 4); le32(gh + 8, 0); le32(gh + 12, 0); le32(gh + 16, 65535); le32(gh + 20, 101);
    fwrite(gh, 1, sizeof gh, pcap);
    init_t38_end(&a, 1, opt.send_file);
    init_t38_end(&b, 0, opt.receive_file);
    while (!(tail_over(&a.e) && tail_over(&b.e))) {
        t38_deliver(&a);
        t38_deliver(&b);
        t38_now += T38_STEP;
        a.e.samples = b.e.samples = t38_now;
        log_end = &a.e;
        t38_terminal_send_timeout(a.e.t38, T38_STEP);
        log_end = &b.e;
        t38_terminal_send_timeout(b.e.t38, T38_STEP);
        enforce_limit(&a.e);
        enforce_limit(&b.e);
    }
    if (fclose(pcap)) die("writing %s failed", opt.file);
    return print_record_result(&a.e, &b.e, t38_now, packets_written);
}

/* ---------------------------------------------------------------- command line */

static int parse_list(const char *arg, const char *const names[], const int bits[], const char *what)
{
    int mask = 0;
    char b[256];
    snprintf(b, sizeof b, "%s", arg);
    for (char *tok = strtok(b, ","); tok; tok = strtok(NULL, ",")) {
        int i;
        for (i = 0; names[i] && strcasecmp(names[i], tok) != 0; i++) ;
        if (!names[i]) die("unknown %s '%s'", what, tok);
        mask |= bits[i];
    }
    if (!mask) die("empty %s list", what);
    return mask;
}

static double parse_dbm0(const char *v, const char *what)
{
    char *end;
    double d = strtod(v, &end);
    if (*end || d > 3.14 || d < -100) die("%s wants dBm0 in -100..3.14, got '%s'", what, v);
    return d;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: fax-peer send FILE.tif|receive OUT.tif [--ecm 0|1] [--modems v27ter,v29,v17] [--compression mh,mr,mmr]\n"
            "                [--resolution standard,fine,superfine,r16] [--ident TEXT] [--max-seconds S] [--tail-ms MS] [--log]\n"
            "                [--tx-level DBM0] [--tx-noise DBM0] [--rx-noise DBM0] [--seed N] [--result FILE]\n"
            "                (--udp pcm|pcmu|pcma --local [HOST:]PORT [--remote HOST:PORT] [--lockstep] [--first|--no-first] | --stdio)\n"
            "       fax-peer record-audio OUT.wav --send FILE.tif --receive OUT.tif [T.30 options] [--tx-level DBM0] [--noise DBM0] [--seed N]\n"
            "       fax-peer record-t38 OUT.pcap --send FILE.tif --receive OUT.tif [T.30 options] [--redundancy 0..2]\n");
    exit(2);
}

static void parse_args(int argc, char **argv)
{
    static const char *const modem_names[] = { "v27ter", "v29", "v17", NULL };
    static const int modem_bits[] = { T30_SUPPORT_V27TER, T30_SUPPORT_V29, T30_SUPPORT_V17 };
    static const char *const comp_names[] = { "mh", "mr", "mmr", NULL };
    static const int comp_bits[] = { T30_SUPPORT_T4_1D_COMPRESSION, T30_SUPPORT_T4_2D_COMPRESSION, T30_SUPPORT_T6_COMPRESSION };
    static const char *const res_names[] = { "standard", "fine", "superfine", "r16", NULL };
    static const int res_bits[] = { T30_SUPPORT_STANDARD_RESOLUTION, T30_SUPPORT_FINE_RESOLUTION, T30_SUPPORT_SUPERFINE_RESOLUTION,
                                    T30_SUPPORT_R16_RESOLUTION };
    if (argc < 3) usage();
    if (!strcmp(argv[1], "send")) opt.mode = MODE_SEND;
    else if (!strcmp(argv[1], "receive")) opt.mode = MODE_RECEIVE;
    else if (!strcmp(argv[1], "record-audio")) opt.mode = MODE_RECORD_AUDIO;
    else if (!strcmp(argv[1], "record-t38")) opt.mode = MODE_RECORD_T38;
    else usage();
    opt.file = argv[2];
    opt.ecm = 1;
    opt.modems = T30_SUPPORT_V27TER | T30_SUPPORT_V29 | T30_SUPPORT_V17;
    opt.compressions = T30_SUPPORT_T4_1D_COMPRESSION | T30_SUPPORT_T4_2D_COMPRESSION | T30_SUPPORT_T6_COMPRESSION;
    opt.resolutions = T30_SUPPORT_STANDARD_RESOLUTION | T30_SUPPORT_FINE_RESOLUTION | T30_SUPPORT_SUPERFINE_RESOLUTION | T30_SUPPORT_R16_RESOLUTION;
    opt.max_seconds = 300;
    opt.tail_ms = 500;
    opt.tx_level = opt.tx_noise = opt.rx_noise = opt.noise = NAN;
    opt.seed = 1;
    opt.local_port = -1;
    opt.first = -1;
    opt.redundancy = 1;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE() do { if (!v) die("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "--ecm")) { TAKE(); opt.ecm = atoi(v) != 0; }
        else if (!strcmp(a, "--modems")) { TAKE(); opt.modems = parse_list(v, modem_names, modem_bits, "modem"); }
        else if (!strcmp(a, "--compression")) { TAKE(); opt.compressions = parse_list(v, comp_names, comp_bits, "compression"); }
        else if (!strcmp(a, "--resolution")) { TAKE(); opt.resolutions = parse_list(v, res_names, res_bits, "resolution"); }
        else if (!strcmp(a, "--ident")) { TAKE(); opt.ident = v; }
        else if (!strcmp(a, "--max-seconds")) { TAKE(); opt.max_seconds = atoi(v); if (opt.max_seconds < 1) die("--max-seconds >= 1"); }
        else if (!strcmp(a, "--tail-ms")) { TAKE(); opt.tail_ms = atoi(v); if (opt.tail_ms < 0) die("--tail-ms >= 0"); }
        else if (!strcmp(a, "--log")) opt.log = 1;
        else if (!strcmp(a, "--tx-level")) { TAKE(); opt.tx_level = parse_dbm0(v, a); }
        else if (!strcmp(a, "--tx-noise")) { TAKE(); opt.tx_noise = parse_dbm0(v, a); }
        else if (!strcmp(a, "--rx-noise")) { TAKE(); opt.rx_noise = parse_dbm0(v, a); }
        else if (!strcmp(a, "--noise")) { TAKE(); opt.noise = parse_dbm0(v, a); }
        else if (!strcmp(a, "--seed")) { TAKE(); opt.seed = atoi(v); }
        else if (!strcmp(a, "--udp")) {
            TAKE();
            opt.transport = TRANSPORT_UDP;
            if (!strcmp(v, "pcm")) opt.codec = CODEC_PCM;
            else if (!strcmp(v, "pcmu")) opt.codec = CODEC_PCMU;
            else if (!strcmp(v, "pcma")) opt.codec = CODEC_PCMA;
            else die("--udp pcm|pcmu|pcma");
        }
        else if (!strcmp(a, "--stdio")) opt.transport = TRANSPORT_STDIO;
        else if (!strcmp(a, "--local")) {
            TAKE();
            const char *colon = strrchr(v, ':');
            snprintf(opt.local_host, sizeof opt.local_host, "%.*s", colon ? (int) (colon - v) : 7, colon ? v : "0.0.0.0");
            opt.local_port = atoi(colon ? colon + 1 : v);
        }
        else if (!strcmp(a, "--remote")) { TAKE(); opt.remote = v; }
        else if (!strcmp(a, "--lockstep")) opt.lockstep = 1;
        else if (!strcmp(a, "--first")) opt.first = 1;
        else if (!strcmp(a, "--no-first")) opt.first = 0;
        else if (!strcmp(a, "--result")) { TAKE(); opt.result_file = v; }
        else if (!strcmp(a, "--send")) { TAKE(); opt.send_file = v; }
        else if (!strcmp(a, "--receive")) { TAKE(); opt.receive_file = v; }
        else if (!strcmp(a, "--redundancy")) { TAKE(); opt.redundancy = atoi(v); if (opt.redundancy < 0 || opt.redundancy > 2) die("--redundancy 0..2"); }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
        else die("unknown option '%s'", a);
#undef TAKE
    }
    /* MH is every fax machine's baseline (T.30 Table 2): always kept. */
    opt.compressions |= T30_SUPPORT_T4_1D_COMPRESSION;
    if (opt.mode == MODE_SEND || opt.mode == MODE_RECEIVE) {
        if (opt.transport == TRANSPORT_NONE) die("a transport is needed: --udp pcm|pcmu|pcma or --stdio");
        if (opt.transport == TRANSPORT_UDP && opt.lockstep && !opt.remote && opt.first == 1) die("--first needs --remote");
        if (opt.transport == TRANSPORT_UDP && opt.lockstep && !opt.remote && opt.first < 0 && opt.mode == MODE_SEND)
            die("the sender goes first in lockstep: it needs --remote (or --no-first)");
        if (!isnan(opt.noise)) die("--noise is for the recorders; use --tx-noise/--rx-noise");
    } else {
        if (!opt.send_file || !opt.receive_file) die("%s needs --send FILE.tif and --receive OUT.tif", argv[1]);
        if (opt.transport != TRANSPORT_NONE) die("the recorders have no transport");
    }
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    TIFFSetWarningHandler(NULL);
    if (!isnan(opt.tx_level)) tx_gain = (float) pow(10.0, (opt.tx_level - SPANDSP_TX_DBM0) / 20.0);
    if (!isnan(opt.tx_noise)) tx_awgn = awgn_init_dbm0(NULL, opt.seed, (float) opt.tx_noise);
    if (!isnan(opt.rx_noise)) rx_awgn = awgn_init_dbm0(NULL, opt.seed + 104729, (float) opt.rx_noise);
    switch (opt.mode) {
    case MODE_RECORD_AUDIO: return run_record_audio();
    case MODE_RECORD_T38: return run_record_t38();
    default: return run_peer();
    }
}
