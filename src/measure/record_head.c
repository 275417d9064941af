// SPDX-License-Identifier: GPL-2.0-or-later
/* record_head.c - what names a recorded series in the JSON, for its time
 * line, its largest samples and its --samples totals alike. */
#include "measure/record.h"

void record_json_head(struct json *j, const struct rec_entry *e)
{
	json_str(j, "test", e->test);
	json_str(j, "series", e->series);
	json_int(j, "thread", e->thread);
	if (e->cpu >= 0)
		json_int(j, "cpu", e->cpu);
	else
		json_null(j, "cpu");
}
