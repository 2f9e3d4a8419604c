// UNIT-SOURCES: lib/list.c
/* Comma-separated lists: items in order, empty items kept, no prefix matches. */
#include "tests/unit/unit.h"
#include <string.h>
#include "lib/list.h"

static void walks_items_in_order(void **state)
{
	(void)state;
	const char *want[] = {"bts", "", "lbr", "pebs"};
	const char *c = "bts,,lbr,pebs", *item;
	size_t len, n = 0;
	while (list_next(&c, &item, &len)) {
		assert_true(n < 4);
		assert_int_equal(len, strlen(want[n]));
		assert_memory_equal(item, want[n], len);
		n++;
	}
	assert_int_equal(n, 4);
	assert_null(c);
	c = "one";
	assert_true(list_next(&c, &item, &len));
	assert_int_equal(len, 3);
	assert_false(list_next(&c, &item, &len));
}

static void contains_is_exact(void **state)
{
	(void)state;
	assert_true(list_contains("skylake,arrowlake", "arrowlake"));
	assert_true(list_contains("skylake", "skylake"));
	assert_false(list_contains("skylake,arrowlake", "sky"));
	assert_false(list_contains("skylake", "skylake2"));
	assert_false(list_contains("", "x"));
	assert_true(list_contains("", ""));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(walks_items_in_order),
    cmocka_unit_test(contains_is_exact),
};
UNIT_MAIN(tests)
