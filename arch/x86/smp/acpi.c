/* SPDX-License-Identifier: MIT */
#include "arch/x86/smp/acpi.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* ACPI 6.5 Table 5.3: Root System Description Pointer. */
struct acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* first 20 bytes sum to 0 */
	char oem_id[6];
	uint8_t revision; /* 0 = ACPI 1.0 (RSDT only), 2 = ACPI 2.0+ (XSDT) */
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum; /* whole structure sums to 0 */
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP is 36 bytes (ACPI Table 5.3)");
_Static_assert(offsetof(struct acpi_rsdp, xsdt_address) == 24, "XSDT address at 24");
#define ACPI_RSDP_V1_LENGTH 20

/* ACPI 6.5 Table 5.19: MADT fixed part, then interrupt controller structures. */
struct acpi_madt {
	struct acpi_sdt_header h; /* "APIC" */
	uint32_t lapic_address;
	uint32_t flags;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT entries start at offset 44");
#define MADT_FLAG_PCAT_COMPAT 0x1

/* ACPI 6.5 Table 5.21 interrupt controller structure types used here. */
enum madt_type {
	MADT_LOCAL_APIC = 0,
	MADT_IO_APIC = 1,
	MADT_LOCAL_APIC_OVERRIDE = 5,
	MADT_LOCAL_X2APIC = 9,
};

struct madt_local_apic { /* Table 5.22 */
	uint8_t type, length;
	uint8_t acpi_uid;
	uint8_t apic_id;
	uint32_t flags;
} __attribute__((packed));
_Static_assert(sizeof(struct madt_local_apic) == 8, "Processor Local APIC entry is 8 bytes");

struct madt_local_x2apic { /* Table 5.41 */
	uint8_t type, length;
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags;
	uint32_t acpi_uid;
} __attribute__((packed));
_Static_assert(sizeof(struct madt_local_x2apic) == 16, "Processor Local x2APIC entry: 16 bytes");

struct madt_lapic_override { /* Table 5.29 */
	uint8_t type, length;
	uint16_t reserved;
	uint64_t address;
} __attribute__((packed));
_Static_assert(sizeof(struct madt_lapic_override) == 12, "Local APIC Address Override: 12");

/* Local APIC flags (Table 5.23). */
#define MADT_LAPIC_ENABLED	  0x1
#define MADT_LAPIC_ONLINE_CAPABLE 0x2

#define ACPI_MAX_TABLE_LENGTH (1u << 20) /* sanity bound on any table we walk */

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum;
}

/* Map a table and validate its header: signature (if given), length bounds and checksum. */
static const struct acpi_sdt_header *map_table(uint64_t phys, acpi_map_fn map, const char *sig,
					       char *err, size_t err_size)
{
	const struct acpi_sdt_header *h = map(phys, sizeof(*h));
	if (!h) {
		fmt_snprintf(err, err_size, "ACPI: table at %#lx cannot be mapped", phys);
		return NULL;
	}
	if (sig && memcmp(h->signature, sig, 4) != 0) {
		fmt_snprintf(err, err_size, "ACPI: table at %#lx: signature '%.4s', expected '%s'",
			     phys, h->signature, sig);
		return NULL;
	}
	if (h->length < sizeof(*h) || h->length > ACPI_MAX_TABLE_LENGTH) {
		fmt_snprintf(err, err_size, "ACPI: %.4s at %#lx: implausible length %u",
			     h->signature, phys, h->length);
		return NULL;
	}
	h = map(phys, h->length);
	if (!h || acpi_checksum(h, h->length) != 0) {
		fmt_snprintf(err, err_size, "ACPI: %.4s at %#lx: checksum does not sum to zero",
			     h ? h->signature : "????", phys);
		return NULL;
	}
	return h;
}

/* Physical address of the first table with `sig` listed in the XSDT (or RSDT). */
static uint64_t find_table(const struct acpi_sdt_header *root, bool xsdt, acpi_map_fn map,
			   const char *sig)
{
	size_t entry = xsdt ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / entry;
	const uint8_t *entries = (const uint8_t *)root + sizeof(*root);
	for (size_t i = 0; i < n; i++) {
		uint64_t phys = 0;
		memcpy(&phys, entries + i * entry, entry); /* little-endian, possibly unaligned */
		const struct acpi_sdt_header *h = map(phys, sizeof(*h));
		if (h && memcmp(h->signature, sig, 4) == 0)
			return phys;
	}
	return 0;
}

static void add_cpu(struct acpi_madt_info *out, uint32_t apic_id, uint32_t uid, uint32_t flags,
		    bool x2)
{
	for (unsigned i = 0; i < out->ncpus; i++)
		if (out->cpus[i].apic_id == apic_id)
			return; /* listed twice (type 0 and type 9): keep the first */
	if (out->ncpus == ACPI_MAX_CPUS) {
		out->dropped++;
		return;
	}
	out->cpus[out->ncpus++] = (struct acpi_cpu){
	    .apic_id = apic_id,
	    .acpi_uid = uid,
	    .enabled = flags & MADT_LAPIC_ENABLED,
	    .online_capable = flags & MADT_LAPIC_ONLINE_CAPABLE,
	    .from_x2apic = x2,
	};
}

static bool parse_madt(const struct acpi_madt *m, struct acpi_madt_info *out, char *err,
		       size_t err_size)
{
	if (m->h.length < sizeof(*m)) {
		fmt_snprintf(err, err_size, "ACPI: MADT too short (%u bytes)", m->h.length);
		return false;
	}
	out->lapic_base = m->lapic_address;
	out->pcat_compat = m->flags & MADT_FLAG_PCAT_COMPAT;
	const uint8_t *p = (const uint8_t *)m + sizeof(*m), *end = (const uint8_t *)m + m->h.length;
	while (p + 2 <= end) {
		uint8_t type = p[0], len = p[1];
		if (len < 2 || p + len > end) {
			fmt_snprintf(
			    err, err_size,
			    "ACPI: MADT entry type %u at offset %ld has length %u beyond the "
			    "table",
			    type, (long)(p - (const uint8_t *)m), len);
			return false;
		}
		if (type == MADT_LOCAL_APIC && len >= sizeof(struct madt_local_apic)) {
			struct madt_local_apic e;
			memcpy(&e, p, sizeof(e));
			add_cpu(out, e.apic_id, e.acpi_uid, e.flags, false);
		} else if (type == MADT_LOCAL_X2APIC && len >= sizeof(struct madt_local_x2apic)) {
			struct madt_local_x2apic e;
			memcpy(&e, p, sizeof(e));
			add_cpu(out, e.x2apic_id, e.acpi_uid, e.flags, true);
		} else if (type == MADT_LOCAL_APIC_OVERRIDE &&
			   len >= sizeof(struct madt_lapic_override)) {
			struct madt_lapic_override e;
			memcpy(&e, p, sizeof(e));
			out->lapic_base = e.address;
		} else if (type == MADT_IO_APIC) {
			out->ioapics++;
		}
		p += len;
	}
	return true;
}

/* The validated root table (XSDT when the RSDP's extended checksum holds, else the RSDT). */
static const struct acpi_sdt_header *map_root(uint64_t rsdp_phys, acpi_map_fn map, bool *xsdt,
					      char *err, size_t err_size)
{
	if (!rsdp_phys) {
		fmt_snprintf(err, err_size, "ACPI: the firmware gave no RSDP");
		return NULL;
	}
	const struct acpi_rsdp *rsdp = map(rsdp_phys, sizeof(*rsdp));
	if (!rsdp || memcmp(rsdp->signature, "RSD PTR ", 8) != 0) {
		fmt_snprintf(err, err_size, "ACPI: no 'RSD PTR ' signature at %#lx", rsdp_phys);
		return NULL;
	}
	if (acpi_checksum(rsdp, ACPI_RSDP_V1_LENGTH) != 0) {
		fmt_snprintf(err, err_size, "ACPI: RSDP checksum (first 20 bytes) is wrong");
		return NULL;
	}
	/* ACPI 2.0+: prefer the XSDT when its extended checksum holds; else the RSDT. */
	bool use_xsdt = rsdp->revision >= 2 && rsdp->xsdt_address &&
			rsdp->length >= sizeof(*rsdp) && acpi_checksum(rsdp, sizeof(*rsdp)) == 0;
	const struct acpi_sdt_header *root =
	    use_xsdt ? map_table(rsdp->xsdt_address, map, "XSDT", err, err_size)
		     : map_table(rsdp->rsdt_address, map, "RSDT", err, err_size);
	if (!root && use_xsdt && rsdp->rsdt_address) {
		use_xsdt = false; /* a broken XSDT: fall back to the RSDT */
		root = map_table(rsdp->rsdt_address, map, "RSDT", err, err_size);
	}
	*xsdt = use_xsdt;
	return root;
}

const void *acpi_find_sdt(uint64_t rsdp_phys, acpi_map_fn map, const char *sig, char *err,
			  size_t err_size)
{
	bool xsdt;
	const struct acpi_sdt_header *root = map_root(rsdp_phys, map, &xsdt, err, err_size);
	if (!root)
		return NULL;
	uint64_t phys = find_table(root, xsdt, map, sig);
	if (!phys) {
		fmt_snprintf(err, err_size, "ACPI: no '%s' table listed in the %s", sig,
			     xsdt ? "XSDT" : "RSDT");
		return NULL;
	}
	return map_table(phys, map, sig, err, err_size);
}

bool acpi_read_madt(uint64_t rsdp_phys, acpi_map_fn map, struct acpi_madt_info *out, char *err,
		    size_t err_size)
{
	memset(out, 0, sizeof(*out));
	const struct acpi_sdt_header *madt = acpi_find_sdt(rsdp_phys, map, "APIC", err, err_size);
	return madt && parse_madt((const struct acpi_madt *)madt, out, err, err_size);
}
