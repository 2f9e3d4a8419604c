/* SPDX-License-Identifier: MIT */
/*
 * The record stream (format version 2; version 1 is still read): framed, CRC-checked records that
 * leave the kernel on the serial line and are read back by tools/btdecode. Built for the kernel and
 * the host alike.
 *
 * A frame is a 12-byte header, a payload of at most BT_PAYLOAD_MAX bytes and the CRC-32
 * (lib/crc32.h) of header and payload, little-endian. Every frame stands alone: a lost or
 * damaged frame takes only its own records with it, and the per-CPU sequence number says how
 * many frames went missing. On the text-safe wire a frame is one line, "@BT1 " and the frame in
 * base64 (RFC 4648, with padding), which no line of the human log starts with; a reader skips
 * whatever else it meets and starts again at the next such line.
 *
 * A boot's stream starts with a HEADER frame (frame 0 of the boot CPU): the kernel's version
 * and build id, the processor, its microcode, the TSC rate, the CPUs, as "key=value" strings.
 * Each CPU numbers its frames from 0 in every boot. The boot ends with the kernel's last line,
 * "run finished: WORD" (BT_RUN_END), after every CPU's frames; and, once the kernel sends it,
 * with the boot's END frame before that line: a HEADER frame of the boot CPU whose string
 * "end=CPU:FRAMES,..." (BT_END_PAIR) says how many frames each CPU sent in this boot, the END
 * frame itself not counted. A reader that has the END frame can prove that no CPU lost its
 * last frames; the last line alone proves only that the capture was not cut. A kernel that
 * sends the END frame says so in its first HEADER frame (BT_END_PROMISE), so that a reader
 * tells the END frame lost from one never sent (an older kernel's capture).
 * Frames of one capture session, in order: BEGIN (the facility's and the session's names),
 * records (BTS, or LBR entries), END (records sent, records lost and why, and a digest: the
 * CRC-32 of the raw records, a BTS record as its 24 bytes, SDM Vol. 3B Table 17-6 layout, with
 * flags as delivered; an LBR entry as bt_digest_lbr says), so a reader proves that it rebuilt
 * every record bit for bit.
 *
 * Format version 2: every frame but HEADER starts with the TSC (LEB128) when the kernel began
 * it: BEGIN's is the session's start, END's the moment its last record was handed on, a
 * record frame's the moment its batch went into the stream (its records were captured before,
 * after the previous batch's; the HEADER's "tsc-khz=" turns TSC into time). A reader takes it
 * off before the payload (struct bt_frame: tsc); version 1 frames have none.
 *
 * Record and END frames start with their session's number: the frame number of its BEGIN
 * (LEB128), so that records after a lost frame are never given to another session.
 * A BTS record is a control byte, then zig-zag LEB128 numbers: FROM less the previous record's
 * TO (the straight-line code between two branches: a few bytes), TO less FROM (the branch's
 * reach), and the flags when they differ from the previous record's. "Previous" starts at 0
 * in every frame.
 */
#ifndef LIB_STREAM_H
#define LIB_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/stream_path.h"

#define BT_STREAM_VERSION  2
#define BT_STREAM_VERSION1 1 /* still read: its frames carry no TSC */
#define BT_MAGIC0	   'B'
#define BT_MAGIC1	   'T'
#define BT_HEADER_LEN	   12
#define BT_CRC_LEN	   4
#define BT_PAYLOAD_MAX	   480
#define BT_FRAME_MAX	   (BT_HEADER_LEN + BT_PAYLOAD_MAX + BT_CRC_LEN)
#define BT_TEXT_PREFIX	   "@BT1 "
#define BT_TEXT_PREFIX_LEN 5
/* base64 of a whole frame, without prefix or newline */
#define BT_TEXT_MAX (((BT_FRAME_MAX + 2) / 3) * 4)
#define BT_NAME_MAX 64 /* a facility's or session's name in BEGIN */
/* The boot's end: the kernel's last line (kernel/boot_info.h RUN_MARKER) and the END frame's
 * string, "end=CPU:FRAMES,..." */
#define BT_RUN_END  "run finished: "
#define BT_END_PAIR "end="
/* The first HEADER frame's pair that promises the boot's END frame. */
#define BT_END_PROMISE "end-frame=yes"
/* records in one frame at most: a PATH frame's record can be a single bit */
#define BT_FRAME_RECORDS_MAX (BT_PAYLOAD_MAX * 8)

/* The header, as bytes on the wire (offsets). */
#define BT_H_MAGIC   0
#define BT_H_VERSION 2
#define BT_H_TYPE    3
#define BT_H_CPU     4 /* 16 bits */
#define BT_H_LEN     6 /* 16 bits: payload bytes */
#define BT_H_SEQ     8 /* 32 bits: this CPU's frame number */

enum bt_frame_type {
	BT_F_BEGIN = 1,	 /* facility NUL session-name NUL */
	BT_F_BTS = 2,	 /* LEB128 session, then BTS records */
	BT_F_END = 3,	 /* LEB128: session, records, lost; 4 bytes digest; loss reason text */
	BT_F_HEADER = 4, /* what the stream describes: "key=value" strings, each NUL-terminated */
	BT_F_LBR = 5,	 /* LEB128 session, then LBR entries (decoded), newest first: control
			  * byte, LEB128 index, FROM and TO deltas as BTS, cycles, branch type,
			  * and a PMI sample's IP and TSC (BT_LBR_SAMPLE) */
	BT_F_PATH = 6,	 /* LEB128 session, 16-bit record count, then BTS records as bits
			  * along the code (lib/stream_path.h) */
	BT_F_PEBS = 7,	 /* LEB128 session, then PEBS samples (decoded): control byte, the
			  * eventing IP less the previous one's, the next IP less it, and the
			  * fields the control byte names */
	BT_F_SAMPLE = 8, /* LEB128 session, then IP samples (a counter overflow's, a BTF trap's
			  * target): control byte, the IP less the previous one's, and with
			  * BT_SAMPLE_LBR the newest LBR entry's FROM less the IP, TO less FROM */
	BT_F_OUTPUT = 9, /* LEB128 session, then a user program's output: the file descriptor
			  * (one byte: 1 stdout, 2 stderr), LEB128 the offset of the first byte
			  * in that descriptor's output, LEB128 the TSC when the program wrote
			  * it, then the bytes as written (struct bt_output) */
};

/* A piece of a user program's output (BT_F_OUTPUT): the bytes at `offset` of file descriptor
 * fd's output in its run. Bytes the kernel could not deliver leave a gap in the offsets. */
struct bt_output {
	uint8_t fd; /* 1 stdout, 2 stderr */
	uint64_t offset, tsc;
	const uint8_t *bytes;
	size_t len;
};
#define BT_OUTPUT_STDOUT 1
#define BT_OUTPUT_STDERR 2

#define BT_SAMPLE_LBR 0x01 /* an IP sample's control byte: the LBR entry follows */
/* The sample's TSC follows (LEB128, less the previous sample's in the frame; 0 at its start).
 * A reader older than it refuses the frame (the bit was "must be 0"). */
#define BT_SAMPLE_TSC  0x02
#define BT_SAMPLE_ZERO 0xfc

/* One IP sample: a counter-overflow sample (pmc, with the LBR stack's newest entry where the
 * session reads it) or a branch trap's target (btf). */
struct bt_sample {
	uint64_t ip;
	bool has_lbr, has_tsc;
	uint64_t lbr_from, lbr_to;
	uint64_t tsc; /* the TSC when the PMI took it (has_tsc) */
};

/* A PEBS sample's control byte. */
#define BT_PEBS_STATUS 0x01 /* applicable counters follow (LEB128; else the previous ones) */
#define BT_PEBS_SIZE   0x02 /* the record size follows (LEB128; else the previous one) */
#define BT_PEBS_LBR                                                                                \
	0x04		      /* the LBR group's newest entry: FROM less the eventing IP, TO less  \
			       * FROM */
#define BT_PEBS_MEM	 0x08 /* data address less the previous one's, data source, latency */
#define BT_PEBS_IP_SHIFT 4    /* bits 5:4: enum bt_pebs_ip */
#define BT_PEBS_ZERO	 0xc0

/* What a PEBS sample's IPs mean (SDM Vol. 3B, "Precise Event Based Sampling (PEBS)": the
 * eventing IP of formats 2 and later is exact; the record's RIP is trap-like, after the
 * instruction, or fault-like where the format says so). */
enum bt_pebs_ip { BT_PEBS_EXACT, BT_PEBS_TRAP, BT_PEBS_FAULT };
const char *bt_pebs_ip_name(unsigned ip); /* "exact", "trap", "fault" */

/* One PEBS sample as the stream carries it: decoded, as the kernel prints it. */
struct bt_pebs {
	uint64_t ev, next, status; /* eventing IP, next IP, applicable counters */
	uint32_t size;		   /* the hardware record's bytes */
	uint8_t ip;		   /* enum bt_pebs_ip */
	bool has_lbr, has_mem;
	uint64_t lbr_from, lbr_to;
	uint64_t dla, dse, lat; /* data linear address, data source, latency */
};

/* A BTS record's control byte. */
#define BT_REC_FLAGS 0x01 /* the flags follow (else the previous record's) */
#define BT_REC_LEAK  0x02 /* the record crossed into the other ring (bts.leak=flag) */
#define BT_REC_ZERO  0xfc /* bits that must be 0 */

/* An LBR entry's control byte. */
#define BT_LBR_CYCLES	  0x01 /* a cycle count follows (LEB128): it is not 0 */
#define BT_LBR_MISPRED_OK 0x02 /* the mispredict bit is valid */
#define BT_LBR_MISPRED	  0x04
#define BT_LBR_IN_TX	  0x08
#define BT_LBR_ABORT	  0x10
#define BT_LBR_BR_TYPE	  0x20 /* an Arch LBR branch type follows (LEB128) */
#define BT_LBR_CYCLES_OK  0x40 /* the cycle count is valid */
/* The first entry of a snapshot a PMI took (option lbr.period, as `perf record -b` samples):
 * the sample's IP (zig-zag LEB128, less the entry's TO) and TSC (LEB128, less the previous
 * sample's in the frame; 0 at its start) follow. A stream of format version 1 without it is
 * read as before; a reader older than it refuses the frame (the bit was "must be 0"). */
#define BT_LBR_SAMPLE 0x80

/* One LBR entry as the stream carries it: decoded, as the kernel prints it. */
struct bt_lbr {
	uint32_t
	    index; /* its place in the stack as printed (entries a filter dropped leave gaps) */
	uint64_t from, to;
	bool cycles_valid, mispred_valid, mispred, in_tx, abort;
	uint32_t cycles;
	int br_type; /* -1: none */
	bool sample; /* the first entry of a PMI's snapshot: ip and tsc are the sample's */
	uint64_t ip, tsc;
};

/* One BTS record as the stream carries it: the hardware's three fields, and the kernel's note. */
struct bt_bts {
	uint64_t from, to, flags;
	bool leak;
};

/* ---- writing ---------------------------------------------------------------------------- */

/* Where finished frames go (the kernel: a text line into the CPU's output buffer). */
typedef void (*bt_emit_fn)(void *ctx, const uint8_t *frame, size_t len);
/* The TSC now (the kernel: RDTSC); NULL: 0. */
typedef uint64_t (*bt_clock_fn)(void);

struct bt_writer {
	uint16_t cpu;
	uint32_t seq; /* the next frame's number (the caller keeps it across sessions) */
	bt_emit_fn emit;
	void *ctx;
	bt_clock_fn clock; /* each frame's TSC */
	uint8_t frame[BT_FRAME_MAX];
	size_t len; /* payload bytes so far (0: no frame open) */
	uint8_t type;
	uint64_t prev_to, prev_flags, prev_tsc;
	uint64_t prev_size, prev_dla; /* PEBS frames' */
	uint64_t records;
	uint32_t digest;
	uint32_t session; /* the open session's BEGIN frame number */
	bool in_session;  /* between BEGIN and END */
	/* BTS records along the code (BT_F_PATH) when path.code is set (bt_writer_set_code) */
	struct bt_path path;
	size_t count_at; /* the PATH frame's record count, in the payload */
	size_t bits_at;	 /* where its bits start, in the payload */
	size_t bits;	 /* bits so far */
	uint16_t count;
};

/* BTS records from now on as BT_F_PATH frames, walking the code that code() gives (NULL: as
 * BT_F_BTS frames). */
void bt_writer_set_code(struct bt_writer *w, bt_code_fn code, void *ctx);

void bt_writer_init(struct bt_writer *w, uint16_t cpu, uint32_t seq, bt_emit_fn emit, void *ctx);
void bt_write_begin(struct bt_writer *w, const char *facility, const char *session);
/* A HEADER frame of n "key=value" strings (those that do not fit are left out: the count). */
unsigned bt_write_header(struct bt_writer *w, const char *const *pairs, unsigned n);
void bt_write_bts(struct bt_writer *w, const struct bt_bts *r);
void bt_write_lbr(struct bt_writer *w, const struct bt_lbr *e);
void bt_write_pebs(struct bt_writer *w, const struct bt_pebs *p);
void bt_write_sample(struct bt_writer *w, const struct bt_sample *s);
/* A program's output piece, in as many BT_F_OUTPUT frames as it takes (not a record: neither
 * counted in END nor in its digest; the offsets show any gap). */
void bt_write_output(struct bt_writer *w, const struct bt_output *o);
/* The open frame out now: the records after it go in a new batch, with a TSC of its own. */
void bt_write_flush(struct bt_writer *w);
/* Closes the session: lost records and why ("" if none). */
void bt_write_end(struct bt_writer *w, uint64_t lost, const char *why);

/* The text-safe line of a frame: BT_TEXT_PREFIX, base64, '\n', NUL; out needs
 * BT_TEXT_PREFIX_LEN + BT_TEXT_MAX + 2 bytes. Returns the length without the NUL. */
size_t bt_text_line(const uint8_t *frame, size_t len, char *out);

/* ---- reading ---------------------------------------------------------------------------- */

/* base64 (RFC 4648) of n characters into out; -1 if a character or the padding is wrong. */
long bt_base64_decode(const char *in, size_t n, uint8_t *out, size_t out_size);

struct bt_frame {
	uint8_t type, version;
	uint16_t cpu;
	uint32_t seq;
	bool has_tsc; /* version 2, not HEADER */
	uint64_t tsc;
	const uint8_t *payload; /* after the TSC */
	uint16_t len;
};
/* A whole frame of exactly n bytes: 0, or -1 with *why (magic, version, length, CRC, TSC). */
int bt_frame_parse(const uint8_t *buf, size_t n, struct bt_frame *f, const char **why);

/* HEADER's strings, each given to fn: their count, or -1 if the frame is malformed. */
long bt_read_header(const struct bt_frame *f, void (*fn)(void *ctx, const char *pair), void *ctx);
/* BEGIN's two names (NUL-terminated, at most BT_NAME_MAX - 1 characters): 0 or -1. */
int bt_read_begin(const struct bt_frame *f, char *facility, char *session);
/* END's fields: 0 or -1. why gets up to why_size - 1 characters. */
int bt_read_end(const struct bt_frame *f, uint32_t *session, uint64_t *records, uint64_t *lost,
		uint32_t *digest, char *why, size_t why_size);
/* A BTS frame's session (*session, first) and records, each given to fn in order: the count,
 * or -1 if the session number or a record is malformed (the records before it were given). */
long bt_read_bts(const struct bt_frame *f, uint32_t *session,
		 void (*fn)(void *ctx, const struct bt_bts *r), void *ctx);

/* A PATH frame's session and records, as bt_read_bts, walking the code that code() gives: the
 * count, or BT_PATH_MALFORMED, or BT_PATH_NO_CODE with the address (*missing) whose code the
 * walk needs, or BT_PATH_LOST (the records before it were given). */
long bt_read_path(const struct bt_frame *f, uint32_t *session, bt_code_fn code, void *code_ctx,
		  void (*fn)(void *ctx, const struct bt_bts *r), void *ctx, uint64_t *missing);
/* The tally bt_read_path keeps from now on (NULL: none). */
void bt_read_path_counts(struct bt_path_counts *counts);
/* The decoded-instruction cache bt_read_path uses from now on (NULL: none); its owner clears it
 * when the code changes. */
void bt_read_path_cache(struct bt_insn_cache *cache);

/* A PEBS frame's session and samples, as bt_read_bts. */
long bt_read_pebs(const struct bt_frame *f, uint32_t *session,
		  void (*fn)(void *ctx, const struct bt_pebs *p), void *ctx);

/* A SAMPLE frame's session and samples, as bt_read_bts. */
long bt_read_sample(const struct bt_frame *f, uint32_t *session,
		    void (*fn)(void *ctx, const struct bt_sample *s), void *ctx);

/* An LBR frame's session and entries, as bt_read_bts. */
long bt_read_lbr(const struct bt_frame *f, uint32_t *session,
		 void (*fn)(void *ctx, const struct bt_lbr *e), void *ctx);

/* An OUTPUT frame's session and piece (o->bytes points into the frame): 0 or -1. */
int bt_read_output(const struct bt_frame *f, uint32_t *session, struct bt_output *o);

/* The digest step for one record: crc = bt_digest(crc, r). */
uint32_t bt_digest(uint32_t crc, const struct bt_bts *r);
/* For one LBR entry: the CRC-32 of its index (4 bytes), FROM, TO (8 each), the cycles (4), the
 * control byte and the branch type (4, -1 as all ones), then for a sample's first entry its IP
 * and TSC (8 each), little-endian. */
uint32_t bt_digest_lbr(uint32_t crc, const struct bt_lbr *e);
/* For one PEBS sample: the CRC-32 of EV, NEXT, STATUS (8 bytes each), SIZE (4), the control
 * byte, then LBR FROM and TO, DLA, DSE and LAT (8 each, 0 where absent), little-endian. */
uint32_t bt_digest_pebs(uint32_t crc, const struct bt_pebs *p);
/* For one IP sample: the CRC-32 of IP (8 bytes), the control byte, LBR FROM and TO (8 each,
 * 0 where absent), then the TSC (8) when it has one, little-endian. */
uint32_t bt_digest_sample(uint32_t crc, const struct bt_sample *s);

#endif
