// SPDX-License-Identifier: GPL-2.0-or-later
/* test_context.c - where a run happens: cpuset lists, steal over a run. */
#include "system/context.h"
#include "unit.h"

UNIT_TEST(context_cpuset_lists)
{
	int cpus[16], miss = -1;
	int want[] = { 1, 3 };

	CHECK_EQ_LL(ctx_cpus_parse("0-2,5", cpus, 16), 4);
	CHECK_EQ_LL(cpus[3], 5);
	CHECK_EQ_LL(ctx_cpus_parse("1-x", cpus, 16), -1);
	CHECK_EQ_LL(ctx_cpus_within("0-1", want, 2, &miss), 0);
	CHECK_EQ_LL(miss, 3);
	CHECK_EQ_LL(ctx_cpus_within("1,3-4", want, 2, &miss), 1);
	CHECK_EQ_LL(ctx_cpus_within("", want, 2, &miss), -1);
}

UNIT_TEST(context_steal_during_run)
{
	struct ctx_snap a = { .steal = 10, .total = 1000 };
	struct ctx_snap b = { .steal = 60, .total = 1200 };
	struct ctx_snap none = { .steal = -1, .total = -1 };

	/* Since boot 1 %, during the run 50 of 200 ticks: 25 %. */
	CHECK_EQ_LL(ctx_steal_pct(&a, NULL) * 100, 100);
	CHECK_EQ_LL(ctx_steal_pct(&a, &b) * 100, 2500);
	CHECK(ctx_steal_pct(&none, &b) < 0);
	CHECK(ctx_steal_pct(&a, &a) < 0);
}
