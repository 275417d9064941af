// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_timerlat.c - libFuzzer harness for the reader of timerlat's
 * trace_pipe text (rtlat timer -t 1|2): any bytes, read through a pipe in
 * the reader's own loop, in mode 1 or 2 with or without -T (the first
 * byte says which). Oracles: no overflow or undefined behaviour
 * (UBSan), nothing read outside the input (ASan), and the seconds handed
 * to the display thread in order, each within the run, with the sample
 * and overrun counts the run's totals.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timer/timer_types.h"
#include "timer/timer_kernel.h"

static void check(struct timer_cpu *c, long long duration_s)
{
	struct timer_second s;
	uint64_t last = 0, n = 0, over = 0;

	while (ring_pop(&c->ring, &s)) {
		if (s.index <= last || !s.n || s.overruns < over ||
		    (duration_s && s.index > (uint64_t)duration_s))
			abort();
		last = s.index;
		n += s.n;
		over = s.overruns;
	}
	if (!c->ring.dropped && (n != c->all.n || over > c->overruns))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct timer_config cfg;
	static struct timer_run run;
	static struct timer_cpu c;
	int fds[2];

	/* What a pipe holds without a reader: the whole input at once. */
	if (size < 1 || size > 60000)
		return 0;
	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	memset(&cfg, 0, sizeof(cfg));
	cfg.mode = data[0] & 1 ? MODE_TIMER_IRQ : MODE_KERNEL_TASK;
	cfg.duration_s = data[0] & 2 ? 2 : 0;
	cfg.period_us = data[0] & 4 ? 1000 : 100000;
	run.cfg = &cfg;
	run.ncpu = 1;
	run.cpu = &c;
	c.run = &run;
	if (stats_init(&c.all, 0, 100, 100) || hist_init(&c.avg, 0, 1000, 10) ||
	    pipe(fds))
		abort();
	if (write(fds[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fds[1]);
	timerlat_read(&c, fds[0]);
	close(fds[0]);
	check(&c, cfg.duration_s);
	stats_free(&c.all);
	hist_free(&c.avg);
	return 0;
}
