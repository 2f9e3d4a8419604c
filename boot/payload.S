/* SPDX-License-Identifier: MIT */
/*
 * The kernel ELF (build/kernel.payload: build/kernel.elf without DWARF) embedded in the
 * loader. gnu-efi's linker script folds .rodata* into .data, one of the sections the final
 * objcopy keeps, so the bytes reach BOOTX64.EFI. The symbols are hidden so the C side reaches
 * them RIP-relative, without GOT entries. boot/kernel_load.c validates the bytes as ELF64.
 */
#ifndef KERNEL_PAYLOAD
#error "KERNEL_PAYLOAD must name the kernel ELF to embed (the Makefile passes it)"
#endif

	.section .rodata.kernel_payload, "a"
	.balign 16
	.globl kernel_payload_start
	.hidden kernel_payload_start
kernel_payload_start:
	.incbin KERNEL_PAYLOAD
	.globl kernel_payload_end
	.hidden kernel_payload_end
kernel_payload_end:

	.section .note.GNU-stack, "", @progbits
