/* SPDX-License-Identifier: MIT */
#include "kernel/program.h"
#include "kernel/console.h"
#include "kernel/workloads.h"
#include "lib/fmt.h"

static enum run_status refuse(const struct boot_info *bi, const char *why)
{
	kprintf("error: program '%s': %s\n", bi->program_path, why);
	return RUN_BAD_CONFIG;
}

enum run_status program_check(const struct boot_info *bi, struct elf_user_image *img, bool *present)
{
	*present = false;
	char why[256];
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
	if (!elf_user_check(arch_phys_to_virt(bi->program_phys), bi->program_size,
			    PROGRAM_WINDOW_LO, PROGRAM_WINDOW_HI, PROGRAM_BUDGET_PAGES, img, why,
			    sizeof(why)))
		return refuse(bi, why);
	*present = true;
	kprintf("program '%s': %lu bytes, static x86-64 ELF, %u segments in [%#lx, %#lx), entry "
		"%#lx, %lu pages\n",
		bi->program_path, (unsigned long)bi->program_size, img->n, (unsigned long)img->lo,
		(unsigned long)img->hi, (unsigned long)img->entry, (unsigned long)img->pages);
	return RUN_PASS;
}

static struct elf_user_image loaded;
static bool is_loaded;

bool program_load(const struct elf_user_image *img)
{
	if (!arch_user_program_map(img, PROGRAM_STACK_TOP, PROGRAM_STACK_PAGES))
		return false;
	loaded = *img;
	is_loaded = true;
	return true;
}

void program_reset(void)
{
	if (is_loaded)
		arch_user_program_reset(&loaded, PROGRAM_STACK_TOP, PROGRAM_STACK_PAGES);
}

/* In .text.workload, as every workload's own code is (the QEMU oracle logs that range). */
WORKLOAD_SECTION uint64_t program_workload(uint64_t arg)
{
	return is_loaded ? arch_user_enter(loaded.entry, PROGRAM_STACK_TOP, arg) : 0;
}
