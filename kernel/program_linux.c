/* SPDX-License-Identifier: MIT */
/*
 * A Linux program's run (kernel/program.h): the memory Linux would give it (heap after its
 * segments, an mmap arena, the output buffer), its argv and environment (options program.argv
 * and program.env, shell words), AT_RANDOM's bytes (program.seed), and the report of the
 * system calls it was refused.
 */
#include "kernel/program.h"
#include "kernel/console.h"
#include "kernel/memory.h"
#include "kernel/options.h"
#include "kernel/arch_cpu.h"
#include "kernel/arch_user.h"
#include "kernel/kernel.h"
#include "lib/bits.h"
#include "lib/elf_sym.h"
#include "lib/fmt.h"
#include "lib/shell_words.h"
#include "lib/string.h"

#define PAGE 4096ull

static char argv_buf[PROGRAM_WORDS_MAX], env_buf[PROGRAM_WORDS_MAX];
static const char *argv[PROGRAM_WORDS_COUNT], *envp[PROGRAM_WORDS_COUNT];
static size_t argc, envc;
static char execfn[BOOT_PROGRAM_PATH_MAX];
static uint64_t seed, heap_used, mmap_used, mm_lo[USER_MM_AREAS], mm_hi[USER_MM_AREAS];
static char file_path[BOOT_DATA_MAX][BOOT_DATA_NAME_MAX + 8];
static struct user_file files[BOOT_DATA_MAX];

/* The boot volume's data files as /data/NAME (boot_info.data[], read by the loader). */
static unsigned data_files(const struct boot_info *bi)
{
	unsigned n = 0;
	for (unsigned i = 0; i < bi->data_count && i < BOOT_DATA_MAX; i++) {
		fmt_snprintf(file_path[n], sizeof(file_path[n]), "/data/%s", bi->data[i].name);
		files[n] = (struct user_file){file_path[n], arch_phys_to_virt(bi->data[i].phys),
					      bi->data[i].size};
		kprintf("program: file %s, %lu bytes, read-only\n", file_path[n],
			(unsigned long)bi->data[i].size);
		n++;
	}
	if (bi->data_skipped)
		kprintf("warning: program: %u files of \\data left out (the loader said why)\n",
			bi->data_skipped);
	return n;
}

/* The volume path as the program sees it: '/' for '\\' (docs/programs.md "Trace your own
 * program"). */
static void unix_path(const char *path, char *out, size_t size)
{
	size_t i = 0;
	for (; path[i] && i + 1 < size; i++)
		out[i] = path[i] == '\\' ? '/' : path[i];
	out[i] = 0;
}

static bool words(const char *name, const char *value, char *buf, const char **w, size_t *n)
{
	const char *why = "";
	if (shell_words_split(value, buf, PROGRAM_WORDS_MAX, w, PROGRAM_WORDS_COUNT, n, &why))
		return true;
	kprintf("error: option %s: %s (at most %d words)\n", name, why, PROGRAM_WORDS_COUNT);
	return false;
}

/* The volume path as "/data/NAME": '\\' as '/', a leading '/' added. */
static void data_path(const char *path, char *out, size_t size)
{
	unix_path(path, out + 1, size - 1);
	out[0] = '/';
	if (out[1] == '/')
		memmove(out, out + 1, strlen(out + 1) + 1);
}

/* The data file program.stdin names (among files[0..n)), or -1 for none (empty stdin). */
static int stdin_index(const char *name, unsigned n)
{
	char want[BOOT_PROGRAM_PATH_MAX + 1];
	if (!name[0])
		return -1;
	data_path(name, want, sizeof(want));
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(file_path[i], want))
			return (int)i;
	return -1;
}

#define PAGES(bytes) ((bytes) / PAGE)

bool program_linux_check(const struct boot_info *bi, const struct kernel_options *o,
			 const struct elf_user_image *img, char *why, size_t size)
{
	const char *fn;
	uint64_t v, n;
	if (o->program_base && (img->abi != ELF_USER_ABI_LINUX || !img->elf.dyn)) {
		fmt_snprintf(
		    why, size,
		    "program.base applies to a static PIE Linux program (ET_DYN); this one "
		    "is linked at fixed addresses; accepted: program.base with "
		    "gcc -static-pie's output, or no program.base");
		return false;
	}
	if (options_program_roi(o, &fn) == PROGRAM_ROI_FUNCTION &&
	    !elf_find_function(img->elf.data, img->elf.size, fn, &v, &n)) {
		fmt_snprintf(why, size,
			     "program.roi=function:%s: no function %s in the program's symbol "
			     "table; accepted: a function (STT_FUNC) that `nm` lists for the "
			     "program (a stripped program has none)",
			     fn, fn);
		return false;
	}
	if (img->abi != ELF_USER_ABI_LINUX)
		return true;
	char want[BOOT_PROGRAM_PATH_MAX + 1];
	data_path(o->program_stdin, want, sizeof(want));
	bool found = !o->program_stdin[0];
	for (unsigned i = 0; i < bi->data_count && i < BOOT_DATA_MAX && !found; i++)
		found = !strncmp(want, "/data/", 6) && !strcmp(want + 6, bi->data[i].name);
	if (!found) {
		fmt_snprintf(why, size,
			     "program.stdin=%s: no such file in the boot volume's \\data\\; "
			     "accepted: /data/NAME of a file there (scripts/run --file FILE puts "
			     "FILE there)",
			     o->program_stdin);
		return false;
	}
	uint64_t heap = ALIGN_UP(img->hi, PAGE);
	if (heap + PROGRAM_LINUX_HEAP > PROGRAM_LINUX_HI) {
		fmt_snprintf(why, size,
			     "no room for its heap (%llu MiB) above its segments' end %#lx below "
			     "%#llx; accepted: segments (and program.base) that leave it",
			     PROGRAM_LINUX_HEAP >> 20, (unsigned long)heap, PROGRAM_LINUX_HI);
		return false;
	}
	uint64_t need = img->pages + PAGES(PROGRAM_LINUX_HEAP) + PAGES(PROGRAM_LINUX_MMAP) +
			PROGRAM_LINUX_STACK_PAGES + PAGES(o->program_output_kib * 1024);
	need += need / (PAGE / sizeof(uint64_t)) + PROGRAM_LINUX_SLACK_PAGES; /* page tables */
	uint64_t free = memory_allocator()->free_pages;
	if (need > free) {
		fmt_snprintf(why, size,
			     "it needs %lu MiB of memory (segments %lu KiB, heap %llu MiB, mmap "
			     "arena %llu MiB, stack %llu MiB, output, page tables), %lu MiB are "
			     "free; accepted: a program that fits (more memory: scripts/run "
			     "--memory SIZE)",
			     (unsigned long)(need >> 8), (unsigned long)(img->pages * 4),
			     PROGRAM_LINUX_HEAP >> 20, PROGRAM_LINUX_MMAP >> 20,
			     PROGRAM_LINUX_STACK_PAGES >> 8, (unsigned long)(free >> 8));
		return false;
	}
	return true;
}

void program_linux_restore(const struct elf_user_image *img)
{
	for (unsigned k = 0; k < USER_MM_AREAS; k++) {
		arch_user_linux_mm_restore(img, mm_lo[k], mm_hi[k]);
		mm_lo[k] = mm_hi[k] = 0;
	}
}

bool program_linux_load(const struct elf_user_image *img, const struct kernel_options *o,
			const char *path, struct user_run_params *p)
{
	unix_path(path, execfn, sizeof(execfn));
	if (!words("program.argv", o->program_argv, argv_buf, argv, &argc) ||
	    !words("program.env", o->program_env, env_buf, envp, &envc))
		return false;
	if (argc == 0) { /* argv[0]: the file's name */
		const char *base = execfn;
		for (const char *c = execfn; *c; c++)
			if (*c == '/')
				base = c + 1;
		argv[argc++] = base;
	}
	seed = o->program_seed;
	uint64_t heap = ALIGN_UP(img->hi, PAGE); /* room checked by program_linux_check */
	if (!arch_user_region_map(heap, PROGRAM_LINUX_HEAP / PAGE) ||
	    !arch_user_region_map(PROGRAM_LINUX_MMAP_LO, PROGRAM_LINUX_MMAP / PAGE)) {
		kprintf("error: program: no memory for its heap or mmap arena\n");
		return false;
	}
	p->heap_lo = heap;
	p->heap_hi = heap + PROGRAM_LINUX_HEAP;
	p->mmap_lo = PROGRAM_LINUX_MMAP_LO;
	p->mmap_hi = PROGRAM_LINUX_MMAP_LO + PROGRAM_LINUX_MMAP;
	p->seed = seed;
	p->files = files;
	p->nfiles = data_files(kernel_boot_info());
	p->stdin_file = stdin_index(o->program_stdin, p->nfiles);
	if (p->stdin_file >= 0)
		kprintf("program: stdin reads %s\n", file_path[p->stdin_file]);
	p->exe = execfn;
	heap_used = heap;
	mmap_used = PROGRAM_LINUX_MMAP_LO;
	if (!program_linux_reset(img, p)) {
		kprintf("error: program: its arguments and environment do not fit its start\n");
		return false;
	}
	return true;
}

uint64_t program_linux_reset(const struct elf_user_image *img, struct user_run_params *p)
{
	arch_user_region_zero(p->heap_lo, heap_used);
	arch_user_region_zero(p->mmap_lo, mmap_used);
	struct linux_start s = {
	    .img = img,
	    .stack_top = p->stack_hi,
	    .room = p->stack_hi - p->stack_lo,
	    .argv = argv,
	    .envp = envp,
	    .argc = (unsigned)argc,
	    .envc = (unsigned)envc,
	    .execfn = execfn,
	};
	uint64_t x = seed;
	for (unsigned i = 0; i < sizeof(s.random); i++) { /* splitmix-style bytes of the seed */
		x += 0x9e3779b97f4a7c15ull;
		s.random[i] = (uint8_t)((x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull >> 56);
	}
	return arch_user_linux_start(&s);
}

void program_linux_done(workload_print_fn print, const struct user_run_end *e)
{
	if (e->heap_used_hi > heap_used)
		heap_used = e->heap_used_hi;
	if (e->mmap_used_hi > mmap_used)
		mmap_used = e->mmap_used_hi;
	for (unsigned k = 0; k < USER_MM_AREAS; k++) {
		if (e->mm_hi[k] && (!mm_hi[k] || e->mm_lo[k] < mm_lo[k]))
			mm_lo[k] = e->mm_lo[k];
		if (e->mm_hi[k] > mm_hi[k])
			mm_hi[k] = e->mm_hi[k];
	}
	if (print && e->fixed_refused)
		print("note: program: cpu=%u: mmap MAP_FIXED outside the memory mapped before the "
		      "run (the mmap arena, the heap's room, the segments, the stack) answered "
		      "-ENOMEM %lu times, first at %#lx\n",
		      e->cpu, (unsigned long)e->fixed_refused, (unsigned long)e->fixed_refused_at);
	for (unsigned i = 0; print && i < e->unsupported_n; i++) {
		const char *name = arch_linux_syscall_name(e->unsupported_nr[i]);
		print(
		    "note: program: cpu=%u: Linux system call %lu (%s) is not supported: -ENOSYS, "
		    "%lu times%s\n",
		    e->cpu, (unsigned long)e->unsupported_nr[i], name ? name : "no such call",
		    (unsigned long)e->unsupported_count[i],
		    name && (!strcmp(name, "clone") || !strcmp(name, "fork") ||
			     !strcmp(name, "vfork") || !strcmp(name, "execve") ||
			     !strcmp(name, "clone3"))
			? " (threads and processes are not supported: one program, one thread)"
			: "");
	}
	if (print && e->unsupported_total)
		print("program: cpu=%u: %lu system calls answered -ENOSYS\n", e->cpu,
		      (unsigned long)e->unsupported_total);
}
