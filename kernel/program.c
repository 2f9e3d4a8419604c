/* SPDX-License-Identifier: MIT */
#include "kernel/program.h"
#include "kernel/build_id.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "kernel/workloads.h"
#include "kernel/options.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_user.h"
#include "kernel/arch_workloads.h"
#include "lib/elf_sym.h"
#include "lib/fmt.h"
#include "lib/stream_path.h"
#include "lib/string.h"

static char loaded_path[BOOT_PROGRAM_PATH_MAX]; /* the checked program's path */

static enum run_status refuse(const struct boot_info *bi, const char *why)
{
	kprintf("error: program '%s': %s\n", bi->program_path, why);
	return RUN_BAD_CONFIG;
}

enum run_status program_check(const struct boot_info *bi, const struct kernel_options *o,
			      struct elf_user_image *img, bool *present)
{
	*present = false;
	char why[384];
	switch (bi->program_status) {
	case BOOT_PROGRAM_NONE:
		return RUN_PASS;
	case BOOT_PROGRAM_ABSENT:
		return refuse(bi,
			      "no such file on the boot volume; accepted: a path from the "
			      "volume's root, e.g. \\progs\\mine.elf (scripts/run --program FILE "
			      "puts one there)");
	case BOOT_PROGRAM_TOO_LARGE:
		fmt_snprintf(why, sizeof(why), "%lu bytes; accepted: at most %lu bytes",
			     (unsigned long)bi->program_size, (unsigned long)BOOT_PROGRAM_MAX);
		return refuse(bi, why);
	case BOOT_PROGRAM_OK:
		break;
	case BOOT_PROGRAM_BAD_OPTION:
		return refuse(bi, "the loader could not read option 'program'");
	default:
		return refuse(bi, "the loader could not read it (its note above says why)");
	}
	uint64_t base = o->program_base ? o->program_base : PROGRAM_LINUX_PIE_BASE;
	if (base < PROGRAM_LINUX_LO || base >= PROGRAM_LINUX_HI) {
		fmt_snprintf(why, sizeof(why),
			     "program.base=%#lx is outside the lower half a Linux program gets; "
			     "accepted: a page-aligned address in [%#llx, %#llx)",
			     (unsigned long)base, PROGRAM_LINUX_LO, PROGRAM_LINUX_HI);
		return refuse(bi, why);
	}
	const struct elf_user_limits lim = {
	    PROGRAM_WINDOW_LO,	 PROGRAM_WINDOW_HI, PROGRAM_LINUX_LO, PROGRAM_LINUX_HI, base,
	    PROGRAM_BUDGET_PAGES};
	if (!elf_user_check(arch_phys_to_virt(bi->program_phys), bi->program_size, &lim, img, why,
			    sizeof(why)))
		return refuse(bi, why);
	if (!program_linux_check(bi, o, img, why, sizeof(why)))
		return refuse(bi, why);
	*present = true;
	memcpy(loaded_path, bi->program_path, sizeof(loaded_path));
	loaded_path[sizeof(loaded_path) - 1] = 0;
	kprintf(
	    "program '%s': %lu bytes, static x86-64 ELF%s, %s ABI, %u segments in [%#lx, %#lx), "
	    "entry %#lx, %lu pages\n",
	    bi->program_path, (unsigned long)bi->program_size,
	    img->elf.dyn ? " (PIE, placed at its ABI's base)" : "",
	    img->abi == ELF_USER_ABI_LINUX ? "Linux" : "baretrace (include/baretrace/user.h)",
	    img->n, (unsigned long)img->lo, (unsigned long)img->hi, (unsigned long)img->entry,
	    (unsigned long)img->pages);
	if (img->elf.dyn && img->abi == ELF_USER_ABI_BARETRACE)
		kprintf("program '%s': %lu R_X86_64_RELATIVE relocations, bias %#lx\n",
			bi->program_path, (unsigned long)img->rela_count, (unsigned long)img->bias);
	return RUN_PASS;
}

static struct elf_user_image loaded;
static bool is_loaded, ended_badly;
static struct user_run_params params;
static uint64_t program_arg;

static uint64_t stack_top, stack_pages, entry_rsp;

/* The entry of the program's function `name` (checked by program_linux_check), with the bias. */
static uint64_t program_function(const char *name)
{
	uint64_t value, size;
	return elf_find_function(loaded.elf.data, loaded.elf.size, name, &value, &size)
		   ? value + loaded.bias
		   : 0;
}

bool program_load(const struct elf_user_image *img, const struct kernel_options *o)
{
	bool lnx = img->abi == ELF_USER_ABI_LINUX;
	const char *roi_fn;
	stack_top = lnx ? PROGRAM_LINUX_STACK_TOP : PROGRAM_STACK_TOP;
	stack_pages = lnx ? PROGRAM_LINUX_STACK_PAGES : PROGRAM_STACK_PAGES;
	if (!arch_user_program_map(img, stack_top, stack_pages))
		return false;
	loaded = *img;
	is_loaded = true;
	program_arg = lnx ? 0 : o->program_arg;
	entry_rsp = stack_top;
	params = (struct user_run_params){
	    .linux_abi = lnx,
	    .watchdog_ms = o->program_watchdog_ms,
	    .roi_marks = options_program_roi(o, &roi_fn) == PROGRAM_ROI_MARKS,
	    .roi_function = roi_fn ? program_function(roi_fn) : 0,
	    .stdin_file = -1,
	    .img = &loaded,
	    .stack_lo = stack_top - stack_pages * ELF_USER_PAGE,
	    .stack_hi = stack_top,
	};
	uint64_t out_bytes = o->program_output_kib * 1024;
	uint64_t out = page_alloc(out_bytes / ELF_USER_PAGE); /* both ABIs */
	if (!out) {
		kprintf("error: program: no memory for its output ring (%lu KiB, program.output)\n",
			(unsigned long)o->program_output_kib);
		return false;
	}
	params.out = arch_phys_to_virt(out);
	params.out_room = out_bytes;
	return !lnx || program_linux_load(&loaded, o, loaded_path, &params);
}

void program_reset(void)
{
	if (!is_loaded)
		return;
	if (params.linux_abi) /* what its memory calls changed, as it was mapped */
		program_linux_restore(&loaded);
	arch_user_program_reset(&loaded, stack_top, stack_pages);
	if (params.linux_abi && !(entry_rsp = program_linux_reset(&loaded, &params)))
		entry_rsp = stack_top; /* cannot happen: program_linux_load built it once */
	arch_user_run_begin(&params);
}

/* "name+0x12" from the program's symbol table, or "?" (a stripped program). */
static void symbolize(uint64_t addr, char *out, size_t size)
{
	struct elf_sym_hit hit;
	if (elf_symbolize(loaded.elf.data, loaded.elf.size, addr - loaded.bias, &hit))
		fmt_snprintf(out, size, "%.*s+%#lx", (int)hit.name_len, hit.name,
			     (unsigned long)hit.offset);
	else
		fmt_snprintf(out, size, "?");
}

void program_done(workload_print_fn print)
{
	struct user_run_end e;
	arch_user_run_end(&e);
	if (params.linux_abi)
		program_linux_done(print, &e); /* the memory it used: zeroed before the next run */
	arch_user_output(print); /* NULL: the native reference run, its traced twin reports */
	if (!print)
		return;
	char sym[128];
	symbolize(e.rip, sym, sizeof(sym));
	if (e.kind == USER_END_FAULT) {
		char cr2[48] = "";
		if (e.has_cr2)
			fmt_snprintf(cr2, sizeof(cr2), " cr2=%#lx", (unsigned long)e.cr2);
		print("error: program: cpu=%u: ended by %s (vector %u) at %#lx <%s> "
		      "error-code=%#lx%s "
		      "after %lu us\n",
		      e.cpu, arch_exception_name(e.vector), e.vector, (unsigned long)e.rip, sym,
		      (unsigned long)e.error_code, cr2, (unsigned long)e.elapsed_us);
		ended_badly = true;
	} else if (e.kind == USER_END_WATCHDOG) {
		print("error: program: cpu=%u: stopped by the watchdog after %lu ms, as asked "
		      "(program.watchdog=%lu; 0, the default, never stops a run) at %#lx <%s>: "
		      "it did not exit, so what it had not written yet (stdio's buffers) is "
		      "lost\n",
		      e.cpu, (unsigned long)(e.elapsed_us / 1000),
		      (unsigned long)params.watchdog_ms, (unsigned long)e.rip, sym);
		ended_badly = true;
	}
}

void program_mark_bad(void)
{
	ended_badly = true;
}

bool program_linux_loaded(void)
{
	return is_loaded && params.linux_abi;
}

bool program_ended_badly(void)
{
	return ended_badly;
}

/* In .text.workload, as every workload's own code is (the QEMU oracle logs that range). The
 * table's argument is unused: the program's is option program.arg. */
WORKLOAD_SECTION uint64_t program_workload(uint64_t arg)
{
	(void)arg;
	return is_loaded ? arch_user_enter(loaded.entry, entry_rsp, program_arg) : 0;
}

unsigned program_stream_pairs(char (*pair)[PROGRAM_PAIR_MAX])
{
	if (!is_loaded)
		return 0;
	unsigned n = 0;
	fmt_snprintf(pair[n++], PROGRAM_PAIR_MAX, "program=%s", loaded_path);
	const uint8_t *id;
	uint32_t len;
	if (elf_find_build_id(&loaded.elf, 64, &id, &len) == ELF_OK) {
		size_t pos = (size_t)fmt_snprintf(pair[n], PROGRAM_PAIR_MAX, "program-build-id=");
		build_id_to_hex(id, len, pair[n] + pos, PROGRAM_PAIR_MAX - pos);
		n++;
	}
	fmt_snprintf(pair[n++], PROGRAM_PAIR_MAX, "program-bias=%#lx", (unsigned long)loaded.bias);
	return n;
}

size_t program_code_at(uint64_t addr, uint8_t *buf)
{
	if (!is_loaded || addr < loaded.bias)
		return 0;
	const uint8_t *file = loaded.elf.data;
	for (unsigned i = 0, n = elf_segment_count(&loaded.elf); i < n; i++) {
		struct elf_segment s;
		elf_segment_at(&loaded.elf, i, &s);
		size_t got =
		    s.type == ELF_PT_LOAD && (s.flags & ELF_PF_X)
			? bt_code_copy(addr - loaded.bias, s.vaddr, file + s.offset, s.filesz, buf)
			: 0;
		if (got)
			return got;
	}
	return 0;
}
