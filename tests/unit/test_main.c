// SPDX-License-Identifier: GPL-2.0-or-later
/* test_main.c - runs every registered unit test. */
#include "unit.h"

int unit_failures;
static struct unit_test *head;

void unit_register(struct unit_test *t)
{
	t->next = head;
	head = t;
}

int main(void)
{
	struct unit_test *t;
	int passed = 0, failed = 0;

	for (t = head; t; t = t->next) {
		int before = unit_failures;

		t->fn();
		if (unit_failures == before) {
			passed++;
		} else {
			failed++;
			fprintf(stderr, "FAIL %s\n", t->name);
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
