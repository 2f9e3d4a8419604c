/* SPDX-License-Identifier: MIT */
/* Ring 3 for workloads: SYSCALL/SYSRET set-up and the user code and stack mappings. */
#ifndef ARCH_X86_USERMODE_H
#define ARCH_X86_USERMODE_H

#include <stdbool.h>
#include <stdint.h>

#define USER_CODE_VA  0x00007f0000000000ull /* alias of user_code_page (user_roundtrip.S) */
#define USER_STACK_VA 0x00007f0000002000ull /* one page; the top is USER_CODE_VA + 0x3000 */

/* On the boot CPU, after paging_init: returns false (with a message) on failure. */
/* The SYSCALL/SYSRET MSRs of the running CPU (usermode_init does the boot CPU's). */
void usermode_init_cpu(void);
bool usermode_init(uint64_t kernel_phys_base);
extern const char user_code_page[];

#endif
