/* SPDX-License-Identifier: MIT */
/*
 * A QEMU TCG plugin: QEMU's own record of the guest's data accesses, the oracle for PEBS data
 * addresses (tests/qemu/pebsmem.t). For every executed instruction in [lo, hi) (or in one of up to
 * four such ranges: lo= and hi= repeated) it writes "I <vcpu> <pc>" when the instruction starts and
 * "R <vcpu> <address>" / "W <vcpu> <address>" for each load and store QEMU performs for it, in
 * order, to the file `out`: qemu-system-x86_64 ... -plugin memtrace.so,lo=0x...,hi=0x...,out=FILE
 * Debian ships QEMU with plugins enabled but without <qemu/qemu-plugin.h>, so the few entry
 * points used are declared here as QEMU 7.2 exports them (plugin API version 1: the
 * qemu_plugin_* functions of QEMU's include/qemu/qemu-plugin.h and docs/devel/tcg-plugins.rst).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(unsigned int vcpu, void *userdata);
typedef void (*mem_cb)(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		       void *userdata);
typedef void (*atexit_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, udata_cb cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb cb, void *userdata);

EXPORT int qemu_plugin_version = 1;

#define RANGES_MAX 4 /* lo= and hi= may come up to four times: each pair one range */
static uint64_t lo[RANGES_MAX], hi[RANGES_MAX];
static unsigned nlo, nhi;

static bool in_ranges(uint64_t pc)
{
	for (unsigned i = 0; i < nhi; i++)
		if (pc >= lo[i] && pc < hi[i])
			return true;
	return false;
}
static FILE *out;

static void on_insn(unsigned int vcpu, void *pc)
{
	fprintf(out, "I %u %#" PRIx64 "\n", vcpu, (uint64_t)(uintptr_t)pc);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *pc)
{
	(void)pc;
	fprintf(out, "%c %u %#" PRIx64 "\n", qemu_plugin_mem_is_store(info) ? 'W' : 'R', vcpu,
		vaddr);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		if (!in_ranges(pc))
			continue;
		void *tag = (void *)(uintptr_t)pc;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, tag);
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, tag);
	}
}

static void on_atexit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	const char *path = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "lo=", 3) && nlo < RANGES_MAX)
			lo[nlo++] = strtoull(argv[i] + 3, NULL, 0);
		else if (!strncmp(argv[i], "hi=", 3) && nhi < nlo)
			hi[nhi++] = strtoull(argv[i] + 3, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!path || !nhi || nhi != nlo || !(out = fopen(path, "w"))) {
		fprintf(stderr,
			"memtrace: need lo=, hi= (each pair a range, at most %d) and a "
			"writable out=\n",
			RANGES_MAX);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
