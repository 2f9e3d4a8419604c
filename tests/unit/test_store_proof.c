// UNIT-SOURCES: arch/x86/step/store_proof.c lib/x86_stores.c lib/x86_mem.c
// UNIT-SOURCES: lib/x86_decode.c lib/x86_decode_tables.c
/*
 * arch/x86/step/store_proof.c: whether a block's stores can reach, physically, its code, a
 * counted loop's counter or a paging-structure table of the walks involved. Checked against
 * sources of the test's own, none taken from the code under test:
 *
 * - A paging model: 4-level paging (SDM Vol. 3A 4.5) over a few frames, tables at each level
 *   keyed by the linear address bits above them (so pages of one 2-MByte region share a page
 *   table, of one 1-GByte region a page directory, as real paging does), 4-KByte and 2-MByte
 *   leaves, walks that end at an entry not present (their tables so far reported), and
 *   non-canonical addresses (no walk). Two linear pages may name one frame ("aliases", 4.5),
 *   a data page may name a table frame, a 2-MByte leaf may cover frames 4-KByte pages name.
 * - Hand cases, each with the SDM's reason: a store through an alias onto code bytes changes
 *   what runs (Vol. 3A 8.1.3); a store into a paging-structure entry may change a translation
 *   (4.10.4); a store onto a page not present or a non-canonical address faults before it
 *   writes (6.5, 4.7).
 * - A byte-by-byte oracle: every byte of the code, the counter and each store mapped through the
 *   model (one walk per linear 4-KByte piece: a page maps at least 4 KBytes), the walks' table
 *   frames collected, and the physical bytes compared. Random models and cases (a fixed seed,
 *   printed with any disagreement) must agree with it exactly where they keep well inside the
 *   header's limits; store_pages_apart must agree with it for whole pages, and where it holds
 *   store_ranges_apart must hold for any stores inside those pages.
 * - store_span against the runs themselves: each run's registers (r0 + k * step), its address
 *   and the lowest and highest byte it writes; store_regs_through against the values evaluated
 *   directly.
 */
#include "tests/unit/unit.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "arch/x86/step/store_proof.h"

#define K4     0x1000ull
#define M2     0x200000ull
#define SEG_FS 0x64 /* the FS and GS override prefixes, as x86_store_ref.seg names them */
#define SEG_GS 0x65
#define NO     X86_STORES_NONE
#define RAX    0
#define RCX    1
#define RDX    2
#define RBX    3
#define RSI    6
#define RDI    7
#define R8     8

static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull; /* Knuth's MMIX LCG */
	return *seed >> 11;
}

static uint64_t below(uint64_t *seed, uint64_t n)
{
	return next_random(seed) % n;
}

static uint64_t random64(uint64_t *seed)
{
	return next_random(seed) << 32 ^ next_random(seed);
}

/* ---- the paging model --------------------------------------------------------------------- */

#define MODEL_DIRS   32
#define MODEL_LEAVES 96

/* A table below the PML4: level 3 (a PDPT, named by the PML4 entry for va >> 39), 2 (a page
 * directory, va >> 30) or 1 (a page table, va >> 21). Where none is listed the entry above it is
 * not present. */
struct model_dir {
	unsigned level;
	uint64_t key, frame;
};
/* A present leaf: a 4-KByte page (a PTE) or a 2-MByte page (a PDE with PS). */
struct model_leaf {
	uint64_t va, size, pa;
};
struct model {
	uint64_t pml4;
	unsigned ndirs, nleaves;
	struct model_dir dir[MODEL_DIRS];
	struct model_leaf leaf[MODEL_LEAVES];
};

static const struct model *model; /* the one model_translate walks */

static bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

static uint64_t dir_key(unsigned level, uint64_t va)
{
	return va >> (12 + 9 * level);
}

static bool dir_frame(const struct model *m, unsigned level, uint64_t va, uint64_t *frame)
{
	for (unsigned i = 0; i < m->ndirs; i++)
		if (m->dir[i].level == level && m->dir[i].key == dir_key(level, va)) {
			*frame = m->dir[i].frame;
			return true;
		}
	return false;
}

static const struct model_leaf *find_leaf(const struct model *m, uint64_t va, uint64_t size)
{
	for (unsigned i = 0; i < m->nleaves; i++)
		if (m->leaf[i].size == size && va - m->leaf[i].va < size)
			return &m->leaf[i];
	return NULL;
}

/* The walk (SDM Vol. 3A 4.5.4): PML4, PDPT, PD, then a 2-MByte leaf or the PT and its PTE. */
static bool model_walk(const struct model *m, uint64_t va, struct ss_translation *t)
{
	memset(t, 0, sizeof(*t));
	if (!canonical(va))
		return false; /* #GP, no walk (Vol. 1 3.3.7.1: canonical addressing) */
	uint64_t f;
	t->table[t->ntables++] = m->pml4;
	if (!dir_frame(m, 3, va, &f))
		return false;
	t->table[t->ntables++] = f;
	if (!dir_frame(m, 2, va, &f))
		return false;
	t->table[t->ntables++] = f;
	const struct model_leaf *l = find_leaf(m, va, M2);
	if (l) {
		t->size = M2;
		t->pa = l->pa + (va - l->va);
		return true;
	}
	if (!dir_frame(m, 1, va, &f))
		return false;
	t->table[t->ntables++] = f;
	l = find_leaf(m, va, K4);
	if (!l)
		return false;
	t->size = K4;
	t->pa = l->pa + (va - l->va);
	return true;
}

static bool model_translate(uint64_t va, struct ss_translation *t)
{
	return model_walk(model, va, t);
}

/* The table of `level` over va: the one there, else `frame` (a new entry in the level above). */
static uint64_t need_dir(struct model *m, unsigned level, uint64_t va, uint64_t frame)
{
	uint64_t f;
	if (dir_frame(m, level, va, &f))
		return f;
	assert_true(m->ndirs < MODEL_DIRS);
	m->dir[m->ndirs++] = (struct model_dir){level, dir_key(level, va), frame};
	return frame;
}

static void add_leaf(struct model *m, uint64_t va, uint64_t size, uint64_t pa)
{
	assert_true(m->nleaves < MODEL_LEAVES);
	assert_true(va % size == 0 && pa % size == 0);
	m->leaf[m->nleaves++] = (struct model_leaf){va, size, pa};
}

/* ---- the byte-by-byte oracle -------------------------------------------------------------- */

#define PHYS_SPAN 0x400000ull /* every model's frames lie below */

static uint32_t code_mark[PHYS_SPAN], slot_mark[PHYS_SPAN], table_mark[PHYS_SPAN / K4];
static uint32_t stamp;

enum scan_kind { SCAN_TABLES, MARK_CODE, MARK_SLOT, CHECK_STORE, CHECK_SLOT };
struct verdict {
	bool apart, code_absent, slot_absent;
};

/* Each byte of linear [lo, hi): its walk's tables marked, or the byte marked or checked. */
static void scan(const struct model *m, uint64_t lo, uint64_t hi, enum scan_kind kind,
		 struct verdict *v)
{
	for (uint64_t va = lo; va < hi;) {
		uint64_t end = (va | (K4 - 1)) + 1;
		if (end > hi || end == 0)
			end = hi;
		struct ss_translation t;
		bool present = model_walk(m, va, &t);
		if (kind == SCAN_TABLES) {
			for (unsigned i = 0; i < t.ntables; i++) {
				assert_true(t.table[i] < PHYS_SPAN && t.table[i] % K4 == 0);
				table_mark[t.table[i] / K4] = stamp;
			}
		} else if (!present) {
			v->code_absent |= kind == MARK_CODE;
			v->slot_absent |= kind == MARK_SLOT;
		} else {
			for (uint64_t b = va; b < end; b++) {
				uint64_t pa = t.pa + (b - va);
				assert_true(pa < PHYS_SPAN);
				bool code = code_mark[pa] == stamp,
				     table = table_mark[pa / K4] == stamp;
				if (kind == MARK_CODE)
					code_mark[pa] = stamp;
				else if (kind == MARK_SLOT)
					slot_mark[pa] = stamp;
				else if (code || table ||
					 (kind == CHECK_STORE && slot_mark[pa] == stamp))
					v->apart = false;
			}
		}
		va = end;
	}
}

static bool own_update(const struct store_proof *p, unsigned i)
{
	return p->slot_hi && p->lo[i] == p->slot_lo && p->hi[i] == p->slot_hi;
}

/* The header's promise, byte by byte: no store byte (but the counter's own update) is a byte of
 * the code, of the counter or of a table on any walk; no counter byte is code or a table; the
 * code present. */
static struct verdict oracle(const struct model *m, const struct store_proof *p)
{
	struct verdict v = {.apart = true};
	stamp++;
	scan(m, p->code_lo, p->code_hi, SCAN_TABLES, &v);
	if (p->slot_hi)
		scan(m, p->slot_lo, p->slot_hi, SCAN_TABLES, &v);
	for (unsigned i = 0; i < p->n; i++)
		scan(m, p->lo[i], p->hi[i], SCAN_TABLES, &v);
	scan(m, p->code_lo, p->code_hi, MARK_CODE, &v);
	if (p->slot_hi)
		scan(m, p->slot_lo, p->slot_hi, MARK_SLOT, &v);
	for (unsigned i = 0; i < p->n; i++)
		if (!own_update(p, i))
			scan(m, p->lo[i], p->hi[i], CHECK_STORE, &v);
	if (p->slot_hi)
		scan(m, p->slot_lo, p->slot_hi, CHECK_SLOT, &v);
	v.apart &= !v.code_absent;
	return v;
}

/* store_pages_apart's promise for whole pages: code's whole page, each page's every byte. */
static bool oracle_pages(const struct model *m, uint64_t code, const uint64_t *pages, unsigned n)
{
	uint64_t lo[2], hi[2];
	for (unsigned i = 0; i < n; i++) {
		lo[i] = pages[i] * K4;
		hi[i] = lo[i] + K4;
	}
	struct store_proof p = {.code_lo = code & ~(K4 - 1),
				.code_hi = (code & ~(K4 - 1)) + K4,
				.n = n,
				.lo = lo,
				.hi = hi};
	return oracle(m, &p).apart;
}

/* ---- the hand model ----------------------------------------------------------------------- */

/* Frames. */
#define F_CODE	0x200000ull
#define F_DATA	0x201000ull
#define F_CTR	0x202000ull
#define F_DATA2 0x203000ull
#define T_PML4	0x300000ull
#define T_PDPT	0x301000ull
#define T_PD	0x302000ull /* linear 0 .. 1 GiB */
#define T_PT_A	0x303000ull /* linear 0x400000 .. 0x600000 (region A) */
#define T_PT_B	0x304000ull /* linear 0x600000 .. 0x800000 (region B) */
#define T_PD_HI 0x305000ull /* linear 1 GiB .. 2 GiB */

/* Linear pages. Region A shares PT_A, region B PT_B; both share PML4, PDPT and PD. */
#define V_CODE	    0x400000ull	      /* F_CODE */
#define V_DATA	    0x401000ull	      /* F_DATA */
#define V_ALIAS	    0x402000ull	      /* F_CODE again: an alias of the code's frame */
#define V_PTA	    0x403000ull	      /* T_PT_A: the code's page table, mapped as data */
#define V_CTR_ALIAS 0x404000ull	      /* F_CTR: an alias of the counter's frame */
#define V_PTB	    0x405000ull	      /* T_PT_B: region B's page table, mapped as data */
#define V_ABSENT    0x406000ull	      /* PTE not present (walk: PML4, PDPT, PD, PT_A) */
#define V_CTR	    0x600000ull	      /* F_CTR */
#define V_DATA_B    0x601000ull	      /* F_DATA2 */
#define V_ABSENT_B  0x602000ull	      /* PTE not present (walk: PML4, PDPT, PD, PT_B) */
#define V_NOPT	    0x800000ull	      /* PDE not present (walk: PML4, PDPT, PD) */
#define V_BIG	    0x40000000ull     /* a 2-MByte page onto physical 0x200000: F_*, T_* */
#define V_FAR	    0x8000000000ull   /* PML4 entry not present (walk: PML4) */
#define V_NONCANON  0x800000000000ull /* not canonical: no walk */
#define CODE_LO	    (V_CODE + 0x100)
#define CODE_HI	    (V_CODE + 0x140)
#define CTR_LO	    (V_CTR + 0x80)
#define CTR_HI	    (V_CTR + 0x88)

static struct model hand;

static void hand_map(uint64_t va, uint64_t pa, uint64_t pt)
{
	assert_int_equal(need_dir(&hand, 3, va, T_PDPT), T_PDPT);
	assert_int_equal(need_dir(&hand, 2, va, T_PD), T_PD);
	assert_int_equal(need_dir(&hand, 1, va, pt), pt);
	if (pa != ~0ull)
		add_leaf(&hand, va, K4, pa);
}

static void hand_model(void)
{
	memset(&hand, 0, sizeof(hand));
	hand.pml4 = T_PML4;
	hand_map(V_CODE, F_CODE, T_PT_A);
	hand_map(V_DATA, F_DATA, T_PT_A);
	hand_map(V_ALIAS, F_CODE, T_PT_A);
	hand_map(V_PTA, T_PT_A, T_PT_A);
	hand_map(V_CTR_ALIAS, F_CTR, T_PT_A);
	hand_map(V_PTB, T_PT_B, T_PT_A);
	hand_map(V_ABSENT, ~0ull, T_PT_A);
	hand_map(V_CTR, F_CTR, T_PT_B);
	hand_map(V_DATA_B, F_DATA2, T_PT_B);
	hand_map(V_ABSENT_B, ~0ull, T_PT_B);
	need_dir(&hand, 3, V_BIG, T_PDPT);
	need_dir(&hand, 2, V_BIG, T_PD_HI);
	add_leaf(&hand, V_BIG, M2, 0x200000);
	model = &hand;
}

static void test_model_itself(void **state)
{
	(void)state;
	hand_model();
	struct ss_translation t;
	/* the walks as the SDM's 4-level paging reads them (Vol. 3A 4.5.4, Figure 4-8) */
	assert_true(model_translate(V_CODE + 0x123, &t));
	assert_int_equal(t.pa, F_CODE + 0x123);
	assert_int_equal(t.size, K4);
	assert_int_equal(t.ntables, 4);
	assert_int_equal(t.table[0], T_PML4);
	assert_int_equal(t.table[3], T_PT_A);
	assert_true(model_translate(V_ALIAS + 0x123, &t));
	assert_int_equal(t.pa, F_CODE + 0x123);
	assert_true(model_translate(V_BIG + 0x103008, &t)); /* a 2-MByte leaf: 3 tables */
	assert_int_equal(t.pa, T_PT_A + 8);
	assert_int_equal(t.size, M2);
	assert_int_equal(t.ntables, 3);
	assert_int_equal(t.table[2], T_PD_HI);
	assert_false(model_translate(V_ABSENT, &t));
	assert_int_equal(t.ntables, 4);
	assert_int_equal(t.table[3], T_PT_A);
	assert_false(model_translate(V_NOPT, &t));
	assert_int_equal(t.ntables, 3);
	assert_false(model_translate(V_FAR, &t));
	assert_int_equal(t.ntables, 1);
	assert_false(model_translate(V_NONCANON, &t));
	assert_int_equal(t.ntables, 0);
	assert_false(model_translate(V_BIG + M2, &t)); /* the next 2 MBytes: PDE not present */
	assert_int_equal(t.ntables, 3);
}

/* ---- hand cases: store_ranges_apart --------------------------------------------------------- */

#define CODE   CODE_LO, CODE_HI
#define NOSLOT 0, 0
#define SLOT   CTR_LO, CTR_HI
/* A case's stores: pairs lo, hi. */
#define STORES(...) (const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / 8
#define NO_STORES   NULL, 0

static bool run_ranges(const struct store_proof *p)
{
	return store_ranges_apart(model_translate, p);
}

static unsigned hand_bad;

/* One case on the hand model: store_ranges_apart, the oracle and the answer by hand agree. */
static void ranges_case(const char *why, bool want, uint64_t code_lo, uint64_t code_hi,
			uint64_t slot_lo, uint64_t slot_hi, const uint64_t *pairs, size_t npairs)
{
	uint64_t lo[4], hi[4];
	assert_true(npairs % 2 == 0 && npairs / 2 <= 4);
	for (size_t i = 0; i < npairs / 2; i++) {
		lo[i] = pairs[2 * i];
		hi[i] = pairs[2 * i + 1];
	}
	struct store_proof p = {code_lo, code_hi, slot_lo, slot_hi, (unsigned)(npairs / 2), lo, hi};
	bool got = run_ranges(&p);
	struct verdict v = oracle(&hand, &p);
	if (got != want || v.apart != want) {
		print_message("# %s: store_ranges_apart %d, oracle %d, by hand %d\n", why, got,
			      v.apart, want);
		hand_bad++;
	}
}

static void test_hand_ranges(void **state)
{
	(void)state;
	hand_model();
	hand_bad = 0;

	/* A frame of its own, mapped once (SDM Vol. 3A 4.5): nothing of the code's. */
	ranges_case("a store into a data page", true, CODE, NOSLOT,
		    STORES(V_DATA + 0x10, V_DATA + 0x18));
	/* 8.1.3, self- and cross-modifying code: a store into an instruction not yet run changes
	 * what runs. */
	ranges_case("the code's own linear bytes (8.1.3)", false, CODE, NOSLOT,
		    STORES(V_CODE + 0x130, V_CODE + 0x131));

	/* 4.5: each linear address has its own walk; nothing keeps two PTEs from one frame. A
	 * store through the alias writes the code's physical bytes (8.1.3 again). */
	ranges_case("through an alias page onto the code's bytes", false, CODE, NOSLOT,
		    STORES(V_ALIAS + 0x120, V_ALIAS + 0x128));
	ranges_case("through the alias onto the code's last byte", false, CODE, NOSLOT,
		    STORES(V_ALIAS + 0x13f, V_ALIAS + 0x140));
	ranges_case("through the alias onto the code's first byte", false, CODE, NOSLOT,
		    STORES(V_ALIAS + 0xf9, V_ALIAS + 0x101));
	ranges_case("through the alias, the 8 bytes just before the code", true, CODE, NOSLOT,
		    STORES(V_ALIAS + 0xf8, V_ALIAS + 0x100));
	ranges_case("through the alias, the 8 bytes just after the code", true, CODE, NOSLOT,
		    STORES(V_ALIAS + 0x140, V_ALIAS + 0x148));
	/* the code's frame, bytes that are not the code's: apart byte by byte (store_pages_apart
	 * says not, test_hand_pages) */
	ranges_case("through the alias onto the code's frame, outside the code", true, CODE, NOSLOT,
		    STORES(V_ALIAS + 0x800, V_ALIAS + 0x808));
	/* one store, two pages, two walks: its tail lands on the alias */
	ranges_case("from a data page across into the alias, onto code at the page's start", false,
		    V_CODE, V_CODE + 0x40, NOSLOT, STORES(V_DATA + 0xffc, V_DATA + 0x1004));
	ranges_case("from a data page across into the alias, before the code", true, CODE, NOSLOT,
		    STORES(V_DATA + 0xffc, V_DATA + 0x1004));
	ranges_case(
	    "the second of three stores crosses into the alias onto the code", false, V_CODE,
	    V_CODE + 0x40, NOSLOT,
	    STORES(V_DATA, V_DATA + 8, V_DATA + 0xff8, V_DATA + 0x1001, V_DATA_B, V_DATA_B + 8));

	/* 4.10.4: a store to a paging-structure entry may change a translation, and "the
	 * processor may use" the old or the new one: a store into any table of a walk involved
	 * may move the code, the counter or a store's page under them. */
	ranges_case("into the code walk's page table (mapped at V_PTA)", false, CODE, NOSLOT,
		    STORES(V_PTA + 0x10, V_PTA + 0x18));
	ranges_case("into the code walk's page table, an entry not the code's", false, CODE, NOSLOT,
		    STORES(V_PTA + 0xff8, V_PTA + 0x1000));
	ranges_case(
	    "into the PML4, through the 2-MByte page over the tables' frames", false, CODE, NOSLOT,
	    STORES(V_BIG + (T_PML4 - 0x200000) + 0x800, V_BIG + (T_PML4 - 0x200000) + 0x808));
	ranges_case("into the 2-MByte page's own page directory (a table of its own walk)", false,
		    CODE, NOSLOT,
		    STORES(V_BIG + (T_PD_HI - 0x200000), V_BIG + (T_PD_HI - 0x200000) + 1));
	ranges_case("into region B's page table, on no walk involved", true, CODE, NOSLOT,
		    STORES(V_PTB, V_PTB + 8));
	ranges_case("into region B's page table while another store's walk reads it", false, CODE,
		    NOSLOT, STORES(V_PTB + 0x8, V_PTB + 0x10, V_DATA_B + 0x10, V_DATA_B + 0x18));
	ranges_case("into region B's page table while the counter's walk reads it", false, CODE,
		    SLOT, STORES(V_PTB + 0x18, V_PTB + 0x20));
	/* a walk that ended at an entry not present: a store into its table may make it present,
	 * and a later store then goes wherever it points */
	ranges_case("into the table of a walk that ends at a PTE not present", false, CODE, NOSLOT,
		    STORES(V_PTB + 0x10, V_PTB + 0x18, V_ABSENT_B, V_ABSENT_B + 8));

	/* 2-MByte pages (4.5: a PDE with PS set): one PDE maps 512 frames, here the code's among
	 * them */
	ranges_case("through the 2-MByte page onto the code's bytes", false, CODE, NOSLOT,
		    STORES(V_BIG + 0x120, V_BIG + 0x121));
	ranges_case("through the 2-MByte page onto a data frame", true, CODE, NOSLOT,
		    STORES(V_BIG + (F_DATA - 0x200000), V_BIG + (F_DATA - 0x200000) + 0x40));
	ranges_case("across the 2-MByte page's end into a PDE not present", true, CODE, NOSLOT,
		    STORES(V_BIG + M2 - 8, V_BIG + M2 + 8));

	/* The counter of a counted loop: its own update writes exactly its word; any other byte
	 * written there, by whatever linear address (4.5), changes the runs. */
	ranges_case("the counter's own update, exactly its word", true, CODE, SLOT,
		    STORES(CTR_LO, CTR_HI));
	ranges_case("the counter's own update and a data store", true, CODE, SLOT,
		    STORES(CTR_LO, CTR_HI, V_DATA, V_DATA + 8));
	ranges_case("the counter's word through an alias (another address, the same bytes)", false,
		    CODE, SLOT, STORES(V_CTR_ALIAS + 0x80, V_CTR_ALIAS + 0x88));
	ranges_case("a byte of the counter through an alias, beside its own update", false, CODE,
		    SLOT, STORES(CTR_LO, CTR_HI, V_CTR_ALIAS + 0x84, V_CTR_ALIAS + 0x85));
	ranges_case("half the counter's word (not its own update)", false, CODE, SLOT,
		    STORES(CTR_LO, CTR_LO + 4));
	ranges_case("overlapping the counter's word", false, CODE, SLOT,
		    STORES(CTR_LO + 4, CTR_HI + 4));
	ranges_case("the 8 bytes just after the counter's word", true, CODE, SLOT,
		    STORES(CTR_HI, CTR_HI + 8));
	ranges_case("the counter's word is the code's, through the alias", false, CODE,
		    V_ALIAS + 0x100, V_ALIAS + 0x108, STORES(V_ALIAS + 0x100, V_ALIAS + 0x108));
	ranges_case("the counter's word is the code's, no store at all", false, CODE,
		    V_ALIAS + 0x138, V_ALIAS + 0x140, NO_STORES);
	ranges_case("the counter's word in the code walk's page table", false, CODE, V_PTA + 0x20,
		    V_PTA + 0x28, STORES(V_PTA + 0x20, V_PTA + 0x28));
	ranges_case("the counter's word in a table of its own walk only (code in region B)", false,
		    V_DATA_B + 0x100, V_DATA_B + 0x140, V_PTA + 0x20, V_PTA + 0x28, NO_STORES);
	ranges_case("the counter's word in region B's table, on no walk involved", true, CODE,
		    V_PTB + 0x20, V_PTB + 0x28, STORES(V_PTB + 0x20, V_PTB + 0x28));

	/* 6.5: a fault is reported before the faulting instruction runs; a store onto a page not
	 * present (4.7) or a non-canonical address (#GP, Vol. 1 3.3.7.1) writes nothing. */
	ranges_case("a store onto a PTE not present", true, CODE, NOSLOT,
		    STORES(V_ABSENT + 0x10, V_ABSENT + 0x18));
	ranges_case("a store onto a PDE not present", true, CODE, NOSLOT,
		    STORES(V_NOPT, V_NOPT + 64));
	ranges_case("a store onto a PML4 entry not present", true, CODE, NOSLOT,
		    STORES(V_FAR + 0x10, V_FAR + 0x18));
	ranges_case("a store onto a non-canonical address", true, CODE, NOSLOT,
		    STORES(V_NONCANON + 8, V_NONCANON + 16));
	/* the header: the code's every byte present; else nothing to keep, false */
	ranges_case("code not present", false, V_ABSENT, V_ABSENT + 0x10, NOSLOT,
		    STORES(V_DATA, V_DATA + 8));
	ranges_case("code running into a page not present", false, V_PTB + 0xff8, V_ABSENT + 8,
		    NOSLOT, STORES(V_DATA, V_DATA + 8));

	if (hand_bad)
		fail_msg("%u hand cases disagree", hand_bad);
}

/* Many ranges: 40 one-byte stores apart from one another, then one onto the code. A proof
 * that keeps only so many ranges must say false, not drop the last (soundness); with the 41st
 * into data too it may say either (the header's "too many"), but true only if the bytes are. */
static void test_hand_limits(void **state)
{
	(void)state;
	hand_model();
	uint64_t lo[41], hi[41];
	for (unsigned i = 0; i < 40; i++) {
		lo[i] = V_DATA + 2 * i;
		hi[i] = lo[i] + 1;
	}
	lo[40] = V_ALIAS + 0x120;
	hi[40] = V_ALIAS + 0x121;
	struct store_proof p = {CODE, NOSLOT, 41, lo, hi};
	assert_false(oracle(&hand, &p).apart);
	assert_false(run_ranges(&p));
	lo[40] = V_DATA_B;
	hi[40] = V_DATA_B + 1;
	assert_true(oracle(&hand, &p).apart);
	bool got = run_ranges(&p);
	print_message("# 41 separate one-byte stores into data: store_ranges_apart %d\n", got);
	/* the same 40 stores but with a counter through an alias in the middle */
	lo[20] = V_CTR_ALIAS + 0x80;
	hi[20] = V_CTR_ALIAS + 0x81;
	struct store_proof q = {CODE, SLOT, 41, lo, hi};
	assert_false(oracle(&hand, &q).apart);
	assert_false(run_ranges(&q));
	/* a store over 1 GiB of pages not present: no byte written, but too many pages to say */
	uint64_t far_lo[1] = {V_FAR}, far_hi[1] = {V_FAR + 0x40000000};
	struct store_proof far = {CODE, NOSLOT, 1, far_lo, far_hi};
	assert_true(oracle(&hand, &far).apart);
	assert_false(run_ranges(&far));
}

/* The counter's word not present: the header asks only the code present; a store to it would
 * fault. Either answer is sound where no byte meets; the implementation is reported. */
static void test_hand_counter_absent(void **state)
{
	(void)state;
	hand_model();
	uint64_t lo[1] = {V_ABSENT + 0x40}, hi[1] = {V_ABSENT + 0x48};
	struct store_proof p = {CODE, V_ABSENT + 0x40, V_ABSENT + 0x48, 1, lo, hi};
	struct verdict v = oracle(&hand, &p);
	assert_true(v.apart && v.slot_absent);
	print_message("# a counter word not present (its own update only): store_ranges_apart %d\n",
		      run_ranges(&p));
}

/* ---- hand cases: store_pages_apart ---------------------------------------------------------- */

/* One case: n pages (by linear address; their page numbers passed) against the code at `code`:
 * store_pages_apart, the oracle over whole pages and the answer by hand agree. */
static void pages_case(const char *why, bool want, uint64_t code, unsigned n, uint64_t p0,
		       uint64_t p1, uint64_t p2)
{
	uint64_t pages[3] = {p0 / K4, p1 / K4, p2 / K4};
	bool got = store_pages_apart(model_translate, code, pages, n);
	bool o = n <= 2 ? oracle_pages(&hand, code, pages, n) : want;
	if (got != want || o != want) {
		print_message("# %s: store_pages_apart %d, oracle %d, by hand %d\n", why, got, o,
			      want);
		hand_bad++;
	}
}

static void test_hand_pages(void **state)
{
	(void)state;
	hand_model();
	hand_bad = 0;
	pages_case("a data page", true, CODE_LO, 1, V_DATA, 0, 0);
	pages_case("two data pages", true, CODE_LO, 2, V_DATA, V_DATA_B, 0);
	pages_case("no page at all", true, CODE_LO, 0, 0, 0, 0);
	/* 8.1.3, 4.5: the code's frame, by its own page or an alias */
	pages_case("the code's own page", false, CODE_LO, 1, V_CODE, 0, 0);
	pages_case("an alias of the code's frame", false, CODE_LO, 1, V_ALIAS, 0, 0);
	pages_case("a data page and the alias", false, CODE_LO, 2, V_DATA, V_ALIAS, 0);
	pages_case("code read through the alias, a store into its other page", false,
		   V_ALIAS + 0x100, 1, V_CODE, 0, 0);
	pages_case("the 2-MByte page's 4 KBytes onto the code's frame", false, CODE_LO, 1, V_BIG, 0,
		   0);
	pages_case("the 2-MByte page's 4 KBytes onto a data frame", true, CODE_LO, 1,
		   V_BIG + 0x1000, 0, 0);
	/* 4.10.4: a table on any of the walks */
	pages_case("the code walk's page table", false, CODE_LO, 1, V_PTA, 0, 0);
	pages_case("region B's page table, on no walk involved", true, CODE_LO, 1, V_PTB, 0, 0);
	pages_case("region B's page table and a page it maps", false, CODE_LO, 2, V_PTB, V_DATA_B,
		   0);
	pages_case("a page region B's table maps, then the table", false, CODE_LO, 2, V_DATA_B,
		   V_PTB, 0);
	pages_case("region B's table and a page not present it would map", false, CODE_LO, 2, V_PTB,
		   V_ABSENT_B, 0);
	pages_case("the 2-MByte page's 4 KBytes onto the PML4", false, CODE_LO, 1, V_BIG + 0x100000,
		   0, 0);
	pages_case("the 2-MByte page's 4 KBytes onto its own page directory", false, CODE_LO, 1,
		   V_BIG + 0x105000, 0, 0);
	/* 6.5: a store there faults before it writes */
	pages_case("a page not present", true, CODE_LO, 1, V_ABSENT, 0, 0);
	pages_case("a PDE not present", true, CODE_LO, 1, V_NOPT, 0, 0);
	pages_case("a PML4 entry not present", true, CODE_LO, 1, V_FAR, 0, 0);
	pages_case("non-canonical", true, CODE_LO, 1, V_NONCANON, 0, 0);
	/* the header: the code present, at most 2 pages */
	pages_case("code not present", false, V_ABSENT, 1, V_DATA, 0, 0);
	pages_case("three pages: more than the header's two", false, CODE_LO, 3, V_DATA, V_DATA_B,
		   V_DATA);

	/* page- and byte-level: onto the code's frame, outside the code's bytes */
	uint64_t page = V_ALIAS / K4, lo[1] = {V_ALIAS + 0x800}, hi[1] = {V_ALIAS + 0x808};
	struct store_proof p = {CODE, NOSLOT, 1, lo, hi};
	if (store_pages_apart(model_translate, CODE_LO, &page, 1) || !run_ranges(&p)) {
		print_message("# the alias outside the code's bytes: pages apart must be false, "
			      "ranges apart true\n");
		hand_bad++;
	}
	if (hand_bad)
		fail_msg("%u hand cases disagree", hand_bad);
}

/* ---- store_span and store_regs_through ------------------------------------------------------ */

static struct x86_stores_value val(uint8_t var, int64_t off)
{
	return (struct x86_stores_value){.var = var, .var2 = NO, .off = off};
}

/* A line whose every register steps by 0 (itself at the exit). */
static void still_line(struct x86_stores *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned r = 0; r < X86_STORES_REGS; r++)
		s->exit[r] = val((uint8_t)r, 0);
}

static bool steps(const struct x86_stores *s, unsigned r, int64_t *step)
{
	if (r == NO) {
		*step = 0;
		return true;
	}
	struct x86_stores_value v = s->exit[r];
	*step = v.off;
	return v.var == r && v.var2 == NO;
}

/* The runs one by one: run k's registers r0 + k * step, its address, its bytes [a, a + span +
 * size). The linear address moves by under 2^63 a run here, so run k's address as an integer
 * is the last one's plus the signed difference; a run below 0 or past 2^64 - 1 wraps. */
static bool brute_span(const struct x86_stores *s, const struct x86_store_ref *st,
		       const struct x86_gprs *g0, uint64_t fs, uint64_t gs, uint64_t trips,
		       uint64_t *lo, uint64_t *hi)
{
	int64_t sb, si;
	if (trips && (!steps(s, st->base, &sb) || !steps(s, st->index, &si)))
		return false;
	struct x86_gprs g = *g0;
	__int128 u = 0, min = 0, max = 0;
	uint64_t last = 0;
	for (uint64_t k = 0; k <= trips; k++) {
		uint64_t a = (uint64_t)st->off;
		if (st->base != NO)
			a += g.r[st->base];
		if (st->index != NO)
			a += g.r[st->index] << st->scale;
		a += st->seg == SEG_FS ? fs : st->seg == SEG_GS ? gs : 0;
		u = k ? u + (int64_t)(a - last) : (__int128)a;
		last = a;
		__int128 end = u + st->size + st->span; /* one past the last byte */
		if (u < 0 || end > (__int128)UINT64_MAX)
			return false; /* wraps, or its end is 2^64: no [lo, hi) of 64 bits */
		if (!k || u < min)
			min = u;
		if (!k || end > max)
			max = end;
		if (st->base != NO)
			g.r[st->base] += (uint64_t)sb;
		if (st->index != NO && st->index != st->base)
			g.r[st->index] += (uint64_t)si;
	}
	*lo = (uint64_t)min;
	*hi = (uint64_t)max;
	return true;
}

#define FS_BASE 0x7f0000001000ull
#define GS_BASE 0xffff888000000000ull
/* A store: base, index, scale, segment prefix, size, displacement, span. */
#define REF(b_, i_, sc_, seg_, size_, off_, span_)                                                 \
	(struct x86_store_ref)                                                                     \
	{                                                                                          \
		.base = (b_), .index = (i_), .scale = (sc_), .seg = (seg_), .size = (size_),       \
		.off = (off_), .span = (span_)                                                     \
	}
/* An exit value: register r plus k, r2 << sc2 */
#define VAL2(r, r2, sc2, k) ((struct x86_stores_value){(r), (r2), (sc2), (k), 0})
#define STEP(r, k)	    VAL2(r, NO, 0, k)

/* One case: the base and index registers start at rbase, rindex and leave the line as
 * base_exit, index_exit; every other register steps by 0. By hand: ok and [lo, hi). */
static void span_case(const char *why, bool ok, uint64_t lo, uint64_t hi, uint64_t trips,
		      struct x86_store_ref st, struct x86_stores_value base_exit, uint64_t rbase,
		      struct x86_stores_value index_exit, uint64_t rindex)
{
	struct x86_stores s;
	still_line(&s);
	struct x86_gprs g = {{0}};
	if (st.base != NO) {
		s.exit[st.base] = base_exit;
		g.r[st.base] = rbase;
	}
	if (st.index != NO && st.index != st.base) {
		s.exit[st.index] = index_exit;
		g.r[st.index] = rindex;
	}
	uint64_t glo = 0, ghi = 0, blo = 0, bhi = 0;
	bool got = store_span(&s, &st, &g, FS_BASE, GS_BASE, trips, &glo, &ghi);
	bool brute = brute_span(&s, &st, &g, FS_BASE, GS_BASE, trips, &blo, &bhi);
	if (got != ok || brute != ok ||
	    (ok && (glo != lo || ghi != hi || blo != lo || bhi != hi))) {
		print_message("# %s: store_span %d [%#lx, %#lx), the runs %d [%#lx, %#lx), by hand "
			      "%d [%#lx, %#lx)\n",
			      why, got, glo, ghi, brute, blo, bhi, ok, lo, hi);
		hand_bad++;
	}
}

static void test_hand_span(void **state)
{
	(void)state;
	hand_bad = 0;
	struct x86_stores_value none = STEP(NO, 0);
	/* runs k = 0 .. trips, the registers r0 + k * step (a counted loop's line) */
	span_case("mov [rdi], rax; add rdi, 8: ten runs", true, 0x10000, 0x10000 + 80, 9,
		  REF(RDI, NO, 0, 0, 8, 0, 0), STEP(RDI, 8), 0x10000, none, 0);
	span_case("one run: the registers' exit values do not matter", true, 0x10000, 0x10008, 0,
		  REF(RDI, NO, 0, 0, 8, 0, 0), STEP(RSI, 8), 0x10000, none, 0);
	span_case("mov [rdi-4], eax; sub rdi, 4: downwards", true, 0x10000 - 16, 0x10000, 3,
		  REF(RDI, NO, 0, 0, 4, -4, 0), STEP(RDI, -4), 0x10000, none, 0);
	span_case("mov [rdi+rcx*8+16], rax; inc rdi; inc rcx: 9 bytes a run", true, 0x20000 + 48,
		  0x20000 + 48 + 18 + 8, 2, REF(RDI, RCX, 3, 0, 8, 16, 0), STEP(RDI, 1), 0x20000,
		  STEP(RCX, 1), 4);
	span_case("an index alone, scale 4, down by one", true, 0x1000, 0x1000 + 44, 10,
		  REF(NO, RCX, 2, 0, 4, 0x1000, 0), none, 0, STEP(RCX, -1), 10);
	span_case("base and index one register: rsi + rsi*2, 3 bytes a run", true, 300, 316, 5,
		  REF(RSI, RSI, 1, 0, 1, 0, 0), STEP(RSI, 1), 100, none, 0);
	span_case("an absolute address: the same bytes every run", true, 0x5000, 0x5002, 1000,
		  REF(NO, NO, 0, 0, 2, 0x5000, 0), none, 0, none, 0);
	span_case("through FS: its base added", true, FS_BASE + 0x40, FS_BASE + 0x50, 1,
		  REF(RBX, NO, 0, SEG_FS, 8, 0, 0), STEP(RBX, 8), 0x40, none, 0);
	span_case("through GS", true, GS_BASE + 0x28, GS_BASE + 0x30, 7,
		  REF(NO, NO, 0, SEG_GS, 8, 0x28, 0), none, 0, none, 0);
	span_case("a byte at rdi + (0..255), a MOVZX's range", true, 0x30000, 0x30000 + 768, 2,
		  REF(RDI, NO, 0, 0, 1, 0, 255), STEP(RDI, 256), 0x30000, none, 0);

	/* the header: a register that does not step as itself plus a constant: false */
	span_case("base left as another register", false, 0, 0, 1, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(RSI, 8), 0x10000, none, 0);
	span_case("base left a constant", false, 0, 0, 1, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(X86_STORES_CONST, 0x10008), 0x10000, none, 0);
	span_case("base left unknown", false, 0, 0, 1, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(X86_STORES_UNKNOWN, 0), 0x10000, none, 0);
	span_case("base left a range", false, 0, 0, 1, REF(RDI, NO, 0, 0, 8, 0, 0),
		  ((struct x86_stores_value){X86_STORES_RANGE, NO, 0, 0, 15}), 0x10000, none, 0);
	span_case("base left itself plus a register (lea rdi, [rdi+rcx])", false, 0, 0, 1,
		  REF(RDI, NO, 0, 0, 8, 0, 0), VAL2(RDI, RCX, 0, 0), 0x10000, none, 0);
	span_case("index left another register", false, 0, 0, 1, REF(RDI, RCX, 0, 0, 8, 0, 0),
		  STEP(RDI, 8), 0x10000, STEP(RDX, 1), 0);

	/* the header: a range that wraps: false; [lo, hi) of 64 bits has no hi of 2^64 */
	span_case("past 2^64", false, 0, 0, 10, REF(RDI, NO, 0, 0, 8, 0, 0), STEP(RDI, 8), -64ull,
		  none, 0);
	span_case("below 0", false, 0, 0, 3, REF(RDI, NO, 0, 0, 8, 0, 0), STEP(RDI, -8), 16, none,
		  0);
	span_case("the first run wraps", false, 0, 0, 0, REF(RDI, NO, 0, 0, 8, 0, 0), STEP(RDI, 8),
		  -4ull, none, 0);
	span_case("ending at 2^64 exactly", false, 0, 0, 0, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(RDI, -8), -8ull, none, 0);
	span_case("ending one below 2^64", true, -25ull, -1ull, 2, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(RDI, -8), -9ull, none, 0);
	span_case("down to byte 0 exactly", true, 0, 24, 2, REF(RDI, NO, 0, 0, 8, 0, 0),
		  STEP(RDI, -8), 16, none, 0);

	/* a stride past the header's "too wide": false, or else the runs' range exactly */
	struct x86_stores s;
	still_line(&s);
	s.exit[RDI] = STEP(RDI, 1ll << 40);
	struct x86_gprs g = {{0}};
	g.r[RDI] = 0x1000;
	struct x86_store_ref st = REF(RDI, NO, 0, 0, 8, 0, 0);
	uint64_t lo, hi, blo, bhi;
	bool got = store_span(&s, &st, &g, 0, 0, 100, &lo, &hi);
	assert_true(brute_span(&s, &st, &g, 0, 0, 100, &blo, &bhi));
	if (got && (lo != blo || hi != bhi)) {
		print_message("# stride 2^40: [%#lx, %#lx), the runs [%#lx, %#lx)\n", lo, hi, blo,
			      bhi);
		hand_bad++;
	}
	print_message("# stride 2^40 over 100 runs: store_span %d\n", got);
	if (hand_bad)
		fail_msg("%u store_span hand cases disagree", hand_bad);
}

static uint64_t random_register(uint64_t *seed)
{
	switch (below(seed, 5)) {
	case 0:
		return below(seed, 1 << 20); /* near 0: runs downwards wrap */
	case 1:
		return -1 - below(seed, 1 << 20); /* near 2^64: runs upwards wrap */
	case 2:
		return random64(seed);
	default:
		return random64(seed) & ((1ull << 47) - 1);
	}
}

/* A register's exit value: mostly itself plus a step, else one that is no step. */
static struct x86_stores_value random_exit(uint64_t *seed, unsigned r)
{
	static const int64_t common[] = {0, 1, -1, 2, 4, 8, -8, 16, 64, -64, 4096};
	int64_t step =
	    below(seed, 2) ? common[below(seed, 11)] : (int64_t)below(seed, 1 << 17) - (1 << 16);
	switch (below(seed, 12)) {
	case 0:
		return val((uint8_t)((r + 1 + below(seed, 15)) % 16), step);
	case 1:
		return val(X86_STORES_CONST, step);
	case 2:
		return (struct x86_stores_value){X86_STORES_UNKNOWN, NO, 0, 0, 0};
	case 3:
		return (struct x86_stores_value){X86_STORES_RANGE, NO, 0, 0, 255};
	case 4:
		return (struct x86_stores_value){(uint8_t)r, (uint8_t)below(seed, 16),
						 (uint8_t)below(seed, 4), step, 0};
	default:
		return val((uint8_t)r, step);
	}
}

#define SPAN_SEED  0x5eed0001ull
#define SPAN_CASES 12000

static void test_random_span(void **state)
{
	(void)state;
	uint64_t seed = SPAN_SEED;
	unsigned bad = 0, yes = 0;
	for (unsigned c = 0; c < SPAN_CASES; c++) {
		struct x86_stores s;
		memset(&s, 0, sizeof(s));
		struct x86_gprs g;
		for (unsigned r = 0; r < X86_STORES_REGS; r++) {
			s.exit[r] = random_exit(&seed, r);
			g.r[r] = random_register(&seed);
		}
		static const uint16_t sizes[] = {1, 2, 4, 8, 16, 32, 64, 3};
		struct x86_store_ref st = {
		    .base = below(&seed, 8) ? (uint8_t)below(&seed, 16) : NO,
		    .index = below(&seed, 2) ? (uint8_t)below(&seed, 16) : NO,
		    .scale = (uint8_t)below(&seed, 4),
		    .seg = below(&seed, 6)   ? 0
			   : below(&seed, 2) ? SEG_FS
					     : SEG_GS,
		    .size = sizes[below(&seed, 8)],
		    .off = below(&seed, 4) ? (int64_t)(int32_t)random64(&seed) : 0,
		    .span = below(&seed, 4)   ? 0
			    : below(&seed, 2) ? 255
					      : below(&seed, 1ull << 31)};
		uint64_t fs = random_register(&seed), gs = random_register(&seed);
		uint64_t trips = below(&seed, 8) ? below(&seed, 2001) : 0;
		uint64_t lo = 0, hi = 0, blo = 0, bhi = 0;
		bool got = store_span(&s, &st, &g, fs, gs, trips, &lo, &hi);
		bool want = brute_span(&s, &st, &g, fs, gs, trips, &blo, &bhi);
		yes += want;
		if (got != want || (want && (lo != blo || hi != bhi))) {
			if (bad++ < 10)
				print_message(
				    "# seed %#llx case %u: store_span %d [%#lx, %#lx), the "
				    "runs %d [%#lx, %#lx)\n",
				    SPAN_SEED, c, got, lo, hi, want, blo, bhi);
		}
	}
	print_message("# store_span: %u random cases, %u of them a range\n", SPAN_CASES, yes);
	if (bad)
		fail_msg("%u of %u random store_span cases disagree (seed %#llx)", bad, SPAN_CASES,
			 SPAN_SEED);
}

static void test_regs_through(void **state)
{
	(void)state;
	/* by hand */
	struct x86_stores s;
	still_line(&s);
	s.exit[RAX] = val(RAX, 8);
	s.exit[RCX] = val(RAX, 0);
	s.exit[RDX] = val(X86_STORES_CONST, 5);
	s.exit[RBX] = (struct x86_stores_value){X86_STORES_UNKNOWN, NO, 0, 0, 0};
	s.exit[RSI] = (struct x86_stores_value){X86_STORES_RANGE, NO, 0, 0, 15};
	s.exit[RDI] = val(RSI, 0);
	s.exit[R8] = (struct x86_stores_value){RAX, RCX, 3, 1, 0};
	s.exit[9] = (struct x86_stores_value){X86_STORES_CONST, RAX, 2, 0x100, 0};
	s.exit[10] = (struct x86_stores_value){X86_STORES_CONST, RSI, 2, 0x100, 0};
	struct x86_gprs g, after;
	for (unsigned r = 0; r < 16; r++)
		g.r[r] = 0x1000 * (r + 1);
	uint16_t known = (1u << RAX) | (1u << RCX) | (1u << 11);
	uint16_t k = store_regs_through(&s, &g, known, &after);
	assert_int_equal(k, (1u << RAX) | (1u << RCX) | (1u << RDX) | (1u << R8) | (1u << 9) |
				(1u << 11));
	assert_int_equal(after.r[RAX], 0x1008);
	assert_int_equal(after.r[RCX], 0x1000);
	assert_int_equal(after.r[RDX], 5);
	assert_int_equal(after.r[R8], 0x1000 + (0x2000 << 3) + 1);
	assert_int_equal(after.r[9], 0x100 + (0x1000 << 2));
	assert_int_equal(after.r[11], 0xc000);
	/* in place, as prove.c composes a chain's prefixes (after == g): the same values, every
	 * one from the registers before the line (RCX = RAX before the ADD, not after) */
	struct x86_gprs inplace = g;
	assert_int_equal(store_regs_through(&s, &inplace, known, &inplace), k);
	assert_memory_equal(&inplace, &after, sizeof(after));

	/* random: each exit value evaluated directly */
	uint64_t seed = 0x5eed0002ull;
	unsigned bad = 0;
	for (unsigned c = 0; c < 4000; c++) {
		for (unsigned r = 0; r < X86_STORES_REGS; r++) {
			s.exit[r] = random_exit(&seed, r);
			if (below(&seed, 6) == 0)
				s.exit[r].var = X86_STORES_CONST;
			g.r[r] = random64(&seed);
		}
		known = (uint16_t)random64(&seed);
		k = store_regs_through(&s, &g, known, &after);
		for (unsigned r = 0; r < X86_STORES_REGS; r++) {
			struct x86_stores_value v = s.exit[r];
			bool is = v.var != X86_STORES_UNKNOWN && v.var != X86_STORES_RANGE &&
				  (v.var == X86_STORES_CONST || (known >> v.var & 1)) &&
				  (v.var2 == NO || (known >> v.var2 & 1));
			uint64_t want = (v.var == X86_STORES_CONST ? 0 : g.r[v.var & 15]) +
					(uint64_t)v.off +
					(v.var2 == NO ? 0 : g.r[v.var2] << v.scale2);
			if (is != (k >> r & 1) || (is && after.r[r] != want)) {
				if (bad++ < 10)
					print_message(
					    "# case %u register %u: known %d %#lx, directly "
					    "%d %#lx\n",
					    c, r, k >> r & 1, after.r[r], is, want);
			}
		}
	}
	if (bad)
		fail_msg("%u store_regs_through values disagree", bad);
}

/* ---- random models ------------------------------------------------------------------------ */

#define POOL	    0x100000ull /* 16 frames: data and tables alike */
#define POOL_FRAMES 16
#define CANDIDATES  128

/* Regions of 2 MBytes: two share a page directory (and so PDPT, PML4 entry), one more under
 * the same PDPT, one under another PML4 entry, one just below the non-canonical hole, one in
 * the upper half. */
static const uint64_t regions[] = {0x400000,	    0x600000,	       0x40000000,
				   0x8000000000ull, 0x7fffffe00000ull, 0xffff800000000000ull};
#define REGIONS (sizeof(regions) / sizeof(regions[0]))

struct random_model {
	struct model m;
	unsigned ncand;
	uint64_t cand[CANDIDATES]; /* linear pages stores, code and counters go to */
};

static uint64_t pool_frame(uint64_t *seed)
{
	return POOL + below(seed, POOL_FRAMES) * K4;
}

static void random_model(struct random_model *rm, uint64_t *seed)
{
	struct model *m = &rm->m;
	memset(rm, 0, sizeof(*rm));
	m->pml4 = pool_frame(seed);
	uint64_t last = pool_frame(seed);
	for (unsigned r = 0; r < REGIONS; r++) {
		uint64_t base = regions[r];
		unsigned kind = (unsigned)below(seed, 10); /* 0: no PD entry, 1-2: 2 MBytes */
		if (kind == 0 && below(seed, 2))
			continue; /* not even a PDPT entry here (maybe: shared with another) */
		need_dir(m, 3, base, pool_frame(seed));
		need_dir(m, 2, base, pool_frame(seed));
		if (kind == 0) {
			for (unsigned i = 0; i < 4; i++)
				rm->cand[rm->ncand++] = base + below(seed, 512) * K4;
		} else if (kind <= 2) {
			add_leaf(m, base, M2, 0); /* physical 0 .. 2 MiB: the pool inside */
			for (unsigned i = 0; i < POOL_FRAMES; i++)
				rm->cand[rm->ncand++] = base + POOL + i * K4;
			rm->cand[rm->ncand++] = base;
			rm->cand[rm->ncand++] = base + M2 - K4;
		} else {
			need_dir(m, 1, base, pool_frame(seed));
			for (unsigned i = 0; i < 7; i++) {
				uint64_t va = base + (i < 6 ? i * K4 : M2 - K4);
				rm->cand[rm->ncand++] = va;
				if (below(seed, 4) == 0)
					continue; /* not present */
				/* a frame of the pool; often the last one again: an alias */
				if (below(seed, 3))
					last = pool_frame(seed);
				add_leaf(m, va, K4, last);
			}
		}
	}
	rm->cand[rm->ncand++] = 0x800000000000ull;     /* non-canonical, after 0x7fffffe00000's */
	rm->cand[rm->ncand++] = 0xffff7ffffffff000ull; /* non-canonical, before the upper half */
	rm->cand[rm->ncand++] = 0x7ffffffff000ull;     /* the last canonical lower page */
	assert_true(rm->ncand <= CANDIDATES);
}

static bool present_range(const struct model *m, uint64_t lo, uint64_t hi)
{
	struct ss_translation t;
	return model_walk(m, lo, &t) && model_walk(m, hi - 1, &t);
}

/* A range of `size` bytes on candidate pages: anywhere in one, often across its end. */
static uint64_t random_at(const struct random_model *rm, uint64_t *seed, uint64_t size)
{
	uint64_t page = rm->cand[below(seed, rm->ncand)];
	if (below(seed, 4) == 0)
		return page + K4 - 1 - below(seed, size < 64 ? 64 : size);
	return page + below(seed, K4 - size + 1);
}

/* A linear address mapping the same physical byte as va, where the model has one. */
static bool alias_of(const struct random_model *rm, uint64_t va, uint64_t *alias, uint64_t *seed)
{
	struct ss_translation t, u;
	if (!model_walk(&rm->m, va, &t))
		return false;
	unsigned from = (unsigned)below(seed, rm->ncand);
	for (unsigned i = 0; i < rm->ncand; i++) {
		uint64_t page = rm->cand[(from + i) % rm->ncand];
		if (model_walk(&rm->m, page, &u) && u.pa / K4 == t.pa / K4 &&
		    page != (va & ~(K4 - 1))) {
			*alias = page + (va & (K4 - 1));
			return true;
		}
	}
	return false;
}

#define RANGES_SEED  0x5eed0003ull
#define RANGES_CASES 20000

static void test_random_ranges(void **state)
{
	(void)state;
	uint64_t seed = RANGES_SEED;
	static struct random_model rm;
	unsigned bad = 0, yes = 0, no_code = 0, slot_absent = 0, slot_absent_yes = 0, own = 0;
	for (unsigned c = 0; c < RANGES_CASES; c++) {
		if (c % 16 == 0)
			random_model(&rm, &seed);
		model = &rm.m;
		uint64_t code_lo = 0, code_len = 1 + below(&seed, 64);
		for (unsigned tries = 0; tries < 8; tries++) {
			code_lo = random_at(&rm, &seed, code_len);
			if (present_range(&rm.m, code_lo, code_lo + code_len))
				break;
		}
		struct store_proof p = {.code_lo = code_lo, .code_hi = code_lo + code_len};
		if (below(&seed, 2)) {
			static const uint64_t words[] = {8, 4, 2, 1};
			uint64_t w = words[below(&seed, 4)];
			for (unsigned tries = 0; tries < 4; tries++) {
				p.slot_lo = random_at(&rm, &seed, w);
				if (below(&seed, 2))
					p.slot_lo &= ~(w - 1);
				if (present_range(&rm.m, p.slot_lo, p.slot_lo + w))
					break;
			}
			p.slot_hi = p.slot_lo + w;
		}
		uint64_t lo[6], hi[6];
		p.n = 1 + (unsigned)below(&seed, 6);
		for (unsigned i = 0; i < p.n; i++) {
			uint64_t size = 1 + below(&seed, 64), a;
			unsigned how = (unsigned)below(&seed, 9);
			if (how == 0 && p.slot_hi) {
				lo[i] = p.slot_lo; /* the counter's own update */
				hi[i] = p.slot_hi;
				continue;
			}
			if (how == 3 && p.slot_hi) { /* from its first byte or to its last, 1..8 */
				size = 1 + below(&seed, 8);
				lo[i] = below(&seed, 2) ? p.slot_lo : p.slot_hi - size;
				hi[i] = lo[i] + size;
				continue;
			}
			if (how == 1 && alias_of(&rm, code_lo + below(&seed, code_len), &a, &seed))
				lo[i] = a - below(&seed, size);
			else if (how == 2 && p.slot_hi && alias_of(&rm, p.slot_lo, &a, &seed))
				lo[i] = a - below(&seed, size);
			else
				lo[i] = random_at(&rm, &seed, size);
			hi[i] = lo[i] + size;
		}
		p.lo = lo;
		p.hi = hi;
		for (unsigned i = 0; i < p.n; i++)
			own += own_update(&p, i);
		bool got = run_ranges(&p);
		struct verdict v = oracle(&rm.m, &p);
		yes += v.apart;
		no_code += v.code_absent;
		if (v.slot_absent && !v.code_absent) {
			/* the header asks the code present, not the counter: conservative allowed
			 */
			slot_absent++;
			slot_absent_yes += got;
			if (got && !v.apart)
				goto disagree;
			continue;
		}
		if (got == v.apart)
			continue;
	disagree:
		if (bad++ < 10) {
			print_message("# seed %#llx case %u: store_ranges_apart %d, bytes %d; code "
				      "[%#lx, %#lx) counter [%#lx, %#lx)\n",
				      RANGES_SEED, c, got, v.apart, p.code_lo, p.code_hi, p.slot_lo,
				      p.slot_hi);
			for (unsigned i = 0; i < p.n; i++)
				print_message("#   store [%#lx, %#lx)\n", lo[i], hi[i]);
		}
	}
	print_message("# store_ranges_apart: %u random cases, %u apart, %u code not present, %u "
		      "own updates, %u counters not present (%u said apart)\n",
		      RANGES_CASES, yes, no_code, own, slot_absent, slot_absent_yes);
	if (bad)
		fail_msg("%u of %u random cases disagree with the bytes (seed %#llx)", bad,
			 RANGES_CASES, RANGES_SEED);
}

#define PAGES_SEED  0x5eed0004ull
#define PAGES_CASES 4000

static void test_random_pages(void **state)
{
	(void)state;
	uint64_t seed = PAGES_SEED;
	static struct random_model rm;
	unsigned bad = 0, yes = 0, sound = 0;
	for (unsigned c = 0; c < PAGES_CASES; c++) {
		if (c % 16 == 0)
			random_model(&rm, &seed);
		model = &rm.m;
		uint64_t code = 0;
		for (unsigned tries = 0; tries < 8; tries++) {
			code = rm.cand[below(&seed, rm.ncand)] + below(&seed, K4);
			if (present_range(&rm.m, code, code + 1))
				break;
		}
		unsigned n = (unsigned)below(&seed, 3);
		uint64_t pages[2], a;
		for (unsigned i = 0; i < n; i++) {
			if (below(&seed, 4) == 0 && alias_of(&rm, code, &a, &seed))
				pages[i] = a / K4;
			else
				pages[i] = rm.cand[below(&seed, rm.ncand)] / K4;
		}
		bool got = store_pages_apart(model_translate, code, pages, n);
		bool want = oracle_pages(&rm.m, code, pages, n);
		yes += got;
		if (got != want) {
			if (bad++ < 10)
				print_message(
				    "# seed %#llx case %u: store_pages_apart %d, bytes %d; "
				    "code %#lx pages %#lx %#lx (n %u)\n",
				    PAGES_SEED, c, got, want, code, n ? pages[0] : 0,
				    n > 1 ? pages[1] : 0, n);
			continue;
		}
		if (!got || !n)
			continue;
		/* sound: any stores inside those pages, any code on the code's page, apart */
		uint64_t lo[4], hi[4], page_lo = code & ~(K4 - 1);
		uint64_t code_lo = page_lo + below(&seed, K4);
		uint64_t code_hi = code_lo + 1 + below(&seed, page_lo + K4 - code_lo);
		struct store_proof p = {.code_lo = code_lo, .code_hi = code_hi, .n = 4};
		for (unsigned i = 0; i < 4; i++) {
			uint64_t base = pages[below(&seed, n)] * K4, x = below(&seed, K4);
			lo[i] = base + x;
			hi[i] = lo[i] + 1 + below(&seed, K4 - x);
		}
		p.lo = lo;
		p.hi = hi;
		sound++;
		if (!oracle(&rm.m, &p).apart || !run_ranges(&p)) {
			if (bad++ < 10)
				print_message(
				    "# seed %#llx case %u: pages apart, but stores inside "
				    "them not (bytes %d, store_ranges_apart %d)\n",
				    PAGES_SEED, c, oracle(&rm.m, &p).apart, run_ranges(&p));
		}
	}
	print_message("# store_pages_apart: %u random cases, %u apart, %u of them checked with "
		      "stores inside\n",
		      PAGES_CASES, yes, sound);
	if (bad)
		fail_msg("%u of %u random page cases disagree (seed %#llx)", bad, PAGES_CASES,
			 PAGES_SEED);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_model_itself),  cmocka_unit_test(test_hand_ranges),
    cmocka_unit_test(test_hand_limits),	  cmocka_unit_test(test_hand_counter_absent),
    cmocka_unit_test(test_hand_pages),	  cmocka_unit_test(test_hand_span),
    cmocka_unit_test(test_random_span),	  cmocka_unit_test(test_regs_through),
    cmocka_unit_test(test_random_ranges), cmocka_unit_test(test_random_pages),
};

UNIT_MAIN(tests)
