/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the record stream's decoder (tools/btdecode.c, lib/stream.c), built with
 * clang -fsanitize=fuzzer,address,undefined (make fuzz; a short run is part of make test). Each
 * input is a whole capture, its first byte choosing the view (tools/bt_views.c, bt_stats.c,
 * bt_calls.c; no ELF: PATH frames walk a fixed made-up code at 0x401000). With bit 7 of that
 * byte set, the rest is frames to be made whole: chunks of a type byte, a length byte and
 * that many payload bytes, each wrapped in a header with a good CRC (a mutated capture seldom
 * gets past the CRC; these reach every payload reader), as "@BT1 " lines or, with bit 6 set,
 * as raw frames (stream=binary) after a log line, their LFs sent as CR LF if bit 5 is set. The
 * decoder must never crash, read out of bounds or hang, whatever it is given. Its records and
 * reports go to /dev/null.
 */
#define BTDECODE_NO_MAIN
#include "tools/btdecode.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The chunks after the first byte as frames of CPU 0, numbered from 0. */
static size_t make_frames(const uint8_t *data, size_t size, char *out, size_t out_size)
{
	bool binary = data[0] & 0x40, crlf = data[0] & 0x20;
	size_t o = 0, i = 1;
	uint32_t seq = 0;
	while (i + 2 <= size && o + 2 * BT_FRAME_MAX + 64 < out_size) {
		uint8_t f[BT_FRAME_MAX] = {BT_MAGIC0, BT_MAGIC1, BT_STREAM_VERSION, data[i]};
		size_t len = data[i + 1];
		i += 2;
		if (len > size - i)
			len = size - i;
		f[BT_H_LEN] = (uint8_t)len;
		for (unsigned k = 0; k < 4; k++)
			f[BT_H_SEQ + k] = (uint8_t)(seq >> (8 * k));
		seq++;
		memcpy(f + BT_HEADER_LEN, data + i, len);
		i += len;
		uint32_t crc = crc32(f, BT_HEADER_LEN + len);
		for (unsigned k = 0; k < 4; k++)
			f[BT_HEADER_LEN + len + k] = (uint8_t)(crc >> (8 * k));
		if (!binary) {
			o += bt_text_line(f, BT_HEADER_LEN + len + BT_CRC_LEN, out + o);
			continue;
		}
		o += (size_t)snprintf(out + o, out_size - o, "log line %u\n", seq);
		for (size_t k = 0; k < BT_HEADER_LEN + len + BT_CRC_LEN; k++) {
			if (crlf && f[k] == '\n')
				out[o++] = '\r';
			out[o++] = (char)f[k];
		}
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static uint8_t code[1024];
	if (!null) {
		null = fopen("/dev/null", "w");
		/* code for PATH frames to walk, at 0x401000: JZ +2, JNZ +0, CALL, CALL *%rax,
		 * JMP ., RET, LOOP, REP MOVSB, NOPs (SDM Vol. 2 appendix A), over and over */
		static const uint8_t menu[] = {0x74, 0x02, 0x75, 0x00, 0xe8, 0x07, 0x00, 0x00,
					       0x00, 0xff, 0xd0, 0xeb, 0xfe, 0x90, 0x90, 0x90,
					       0xc3, 0xe2, 0xf0, 0xf3, 0xa4, 0x90};
		for (size_t i = 0; i < sizeof(code); i++)
			code[i] = menu[i % sizeof(menu)];
		bt_sym_test_code(0x401000, code, sizeof(code));
	}
	out_records = out_problems = null;
	/* the first byte picks the view: each of them meets every input */
	unsigned n_views = 0;
	while (bt_views[n_views])
		n_views++;
	view = bt_views[size ? data[0] % n_views : 0];
	static char text[1 << 20];
	if (size && data[0] & 0x80) {
		size = make_frames(data, size, text, sizeof(text));
		data = (const uint8_t *)text;
	}
	FILE *in = fmemopen((void *)data, size ? size : 1, "rb");
	if (!in)
		return 0;
	if (size)
		btdecode_stream(in, "fuzz");
	fclose(in);
	return 0;
}
