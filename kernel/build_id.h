/* SPDX-License-Identifier: MIT */
/* The kernel's GNU build id (ld --build-id), printed in banners and dumps for the host. */
#ifndef KERNEL_BUILD_ID_H
#define KERNEL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 32

/* Parse an ELF note section holding NT_GNU_BUILD_ID; returns the id length or 0. Pure. */
size_t build_id_parse_note(const void *note, size_t len, uint8_t *out, size_t max);
/* n id bytes as lowercase hex into out (as many whole bytes as fit). Pure. */
void build_id_to_hex(const uint8_t *id, size_t n, char *out, size_t size);
/* The running kernel's id as lowercase hex ("unknown" if absent) into out. */
void build_id_hex(char *out, size_t size);

#endif
