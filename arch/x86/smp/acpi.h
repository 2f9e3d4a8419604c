/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables the kernel reads: RSDP -> XSDT (RSDT fallback) -> MADT (ACPI 6.5, 5.2.5 RSDP,
 * 5.2.7 RSDT, 5.2.8 XSDT, 5.2.12 MADT). Parsing is pure: tables are reached through a
 * caller-supplied physical-to-virtual function, so host tests feed synthetic tables.
 */
#ifndef ARCH_X86_SMP_ACPI_H
#define ARCH_X86_SMP_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_MAX_CPUS 256

/* ACPI 6.5 Table 5.4: System Description Table Header. */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "SDT header is 36 bytes");

struct acpi_cpu {
	uint32_t apic_id;
	uint32_t acpi_uid;
	bool enabled;	     /* MADT flags bit 0: usable at boot */
	bool online_capable; /* bit 1: may be enabled later (not brought up by us) */
	bool from_x2apic;    /* described by a Processor Local x2APIC entry (type 9) */
};

struct acpi_madt_info {
	uint64_t lapic_base; /* after any Local APIC Address Override (type 5) */
	bool pcat_compat;    /* dual 8259s present (MADT flags bit 0) */
	unsigned ncpus;	     /* entries in cpus[], duplicates by APIC ID removed */
	unsigned dropped;    /* CPUs beyond ACPI_MAX_CPUS, counted, not stored */
	unsigned ioapics;
	struct acpi_cpu cpus[ACPI_MAX_CPUS];
};

typedef const void *(*acpi_map_fn)(uint64_t phys, size_t len);

/*
 * Find the MADT from the RSDP and decode it. On failure returns false with a message naming
 * the table and the problem (bad signature, checksum, length) in err.
 */
bool acpi_read_madt(uint64_t rsdp_phys, acpi_map_fn map, struct acpi_madt_info *out, char *err,
		    size_t err_size);
/*
 * The table with signature `sig` listed in the XSDT (or RSDT), its header, length and checksum
 * checked; NULL with the reason in err (no RSDP, not listed, bad checksum...).
 */
const void *acpi_find_sdt(uint64_t rsdp_phys, acpi_map_fn map, const char *sig, char *err,
			  size_t err_size);
/* The kernel's map function: the identity map, bounded by boot_info.identity_limit. */
const void *acpi_map_kernel(uint64_t phys, size_t len);
/* The 8-bit sum of len bytes (0 for a valid ACPI table). */
uint8_t acpi_checksum(const void *p, size_t len);

#endif
