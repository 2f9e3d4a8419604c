/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the record stream's decoder (tools/btdecode.c, lib/stream.c), built with
 * clang -fsanitize=fuzzer,address,undefined (make fuzz; a short run is part of make test). Each
 * input is a whole capture, its first byte choosing the view (tools/bt_views.c, bt_stats.c,
 * bt_calls.c; no ELF, so every address is unknown); the decoder must never crash, read out of
 * bounds or hang on it, whatever it holds. Its records and reports go to /dev/null.
 */
#define BTDECODE_NO_MAIN
#include "tools/btdecode.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	out_records = out_problems = null;
	/* the first byte picks the view: each of them meets every input */
	unsigned n_views = 0;
	while (bt_views[n_views])
		n_views++;
	view = bt_views[size ? data[0] % n_views : 0];
	FILE *in = fmemopen((void *)data, size ? size : 1, "rb");
	if (!in)
		return 0;
	if (size)
		btdecode_stream(in, "fuzz");
	fclose(in);
	return 0;
}
