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
#include "lib/fmt.h"
#include "lib/shell_words.h"
#include "lib/string.h"

#define WORDS_MAX 64
#define PAGE	  4096ull

static char argv_buf[PROGRAM_WORDS_MAX], env_buf[PROGRAM_WORDS_MAX];
static const char *argv[WORDS_MAX], *envp[WORDS_MAX];
static size_t argc, envc;
static char execfn[BOOT_PROGRAM_PATH_MAX];
static uint64_t seed, heap_used, mmap_used;
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

/* The volume path as the program sees it: '/' for '\\' (README "Trace your own program"). */
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
	if (shell_words_split(value, buf, PROGRAM_WORDS_MAX, w, WORDS_MAX, n, &why))
		return true;
	kprintf("error: option %s: %s (at most %d words)\n", name, why, WORDS_MAX);
	return false;
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
	uint64_t heap = ALIGN_UP(img->hi, PAGE);
	if (heap + PROGRAM_LINUX_HEAP > PROGRAM_LINUX_HI) {
		kprintf("error: program: no room for its heap above %#lx (below %#llx)\n",
			(unsigned long)heap, PROGRAM_LINUX_HI);
		return false;
	}
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
