// SPDX-License-Identifier: GPL-2.0-or-later
/* test_timer.c - the timer's pure logic: per-second aggregation, the ring,
 * the summary, Xenomai histogram figures, overrun counting and formats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "timer/timer_types.h"
#include "timer/timer_kernel.h"
#include "timer/timer_run.h"
#include "timer/timer_sample.h"
#include "timer/timer_summary.h"
#include "timer/timer_output.h"
#include "unit.h"

UNIT_TEST(timer_second_aggregates)
{
	struct timer_second s;

	second_reset(&s, 3);
	CHECK_EQ_LL(second_avg(&s), 0);
	second_add(&s, 5000);
	second_add(&s, -1000);
	second_add(&s, 2000);
	CHECK_EQ_LL(s.index, 3);
	CHECK_EQ_LL(s.n, 3);
	CHECK_EQ_LL(s.min, -1000);
	CHECK_EQ_LL(s.max, 5000);
	CHECK_EQ_LL(second_avg(&s), 2000);
}

UNIT_TEST(timer_ring_fifo_and_full)
{
	static struct timer_ring r;
	struct timer_second s, out;
	int i;

	memset(&r, 0, sizeof(r));
	memset(&out, 0, sizeof(out));
	CHECK(!ring_pop(&r, &out));
	for (i = 0; i < TIMER_RING_SLOTS; i++) {
		second_reset(&s, (uint64_t)i + 1);
		CHECK(ring_push(&r, &s));
	}
	CHECK(!ring_push(&r, &s));
	CHECK_EQ_LL(r.dropped, 1);
	for (i = 0; i < TIMER_RING_SLOTS; i++) {
		CHECK(ring_pop(&r, &out));
		CHECK_EQ_LL(out.index, i + 1);
	}
	CHECK(!ring_pop(&r, &out));
	/* Wraps around. */
	second_reset(&s, 99);
	CHECK(ring_push(&r, &s));
	CHECK(ring_pop(&r, &out));
	CHECK_EQ_LL(out.index, 99);
}

UNIT_TEST(timer_summary_folds_seconds)
{
	struct timer_summary t;
	struct timer_second s;
	const uint64_t *cmin, *cmax;

	CHECK(summary_init(&t, 1000, 10) == 0);
	cmin = t.hmin.count;
	cmax = t.hmax.count;
	CHECK_NEAR(summary_avg(&t), 0.0, 1e-9);
	second_reset(&s, 1);
	second_add(&s, 2000);
	second_add(&s, 4000);
	s.overruns = 1;
	summary_add(&t, &s);
	second_reset(&s, 2);
	second_add(&s, -1500);
	second_add(&s, 50000);
	s.overruns = 4;
	s.partial = true;
	summary_add(&t, &s);
	second_reset(&s, 3);		/* empty: ignored */
	summary_add(&t, &s);
	/* The partial second (no RTD line) is counted apart: RTS, the
	 * |min|/|max| cells and the overruns are the complete seconds'. */
	CHECK_EQ_LL(t.seconds, 1);
	CHECK_EQ_LL(t.partial, 1);
	CHECK_EQ_LL(t.min, 2000);
	CHECK_EQ_LL(t.max, 4000);
	CHECK_EQ_LL(t.overruns, 1);
	CHECK_EQ_LL(t.overruns_end, 4);
	CHECK_EQ_LL(t.samples, 4);
	CHECK_EQ_LL(t.last, 50000);
	CHECK_NEAR(summary_avg(&t), 3000.0, 1e-9);
	/* A second complete again after it counts as before. */
	second_reset(&s, 4);
	second_add(&s, -1500);
	second_add(&s, 50000);
	s.overruns = 5;
	summary_add(&t, &s);
	CHECK_EQ_LL(t.seconds, 2);
	CHECK_EQ_LL(t.min, -1500);
	CHECK_EQ_LL(t.max, 50000);
	CHECK_EQ_LL(t.overruns, 5);
	/* Mean of the per-second averages: (3000 + 24250) / 2. */
	CHECK_NEAR(summary_avg(&t), 13625.0, 1e-9);
	/* |min| of each second: 2 us and 1.5 us -> cells 2 and 1. */
	CHECK_EQ_LL(cmin[1], 1);
	CHECK_EQ_LL(cmin[2], 1);
	/* 50 us is past 10 cells: overflow, shown in the last cell. */
	CHECK_EQ_LL(cmax[4], 1);
	CHECK_EQ_LL(hist_past(&t.hmax), 1);
	CHECK_EQ_LL(xeno_cell(&t.hmax, 9), 1);
	summary_free(&t);
}

UNIT_TEST(timer_xeno_hist_stats)
{
	static uint64_t c[32768];	/* hist_bytes(1000, 4): to 100 s too */
	struct histogram h;
	uint64_t n;
	double avg, sd;

	CHECK(hist_bytes(1000, 4) <= sizeof(c));
	hist_init_mem(&h, 0, 1000, 4, c);
	xeno_hist_stats(&h, &n, &avg, &sd);
	CHECK_EQ_LL(n, 0);
	CHECK_NEAR(avg, 0.0, 1e-12);
	CHECK_NEAR(sd, 0.0, 1e-12);
	hist_add_abs(&h, 1500);		/* cell 1 */
	hist_add_abs(&h, -1200);	/* |.|: cell 1 */
	hist_add_abs(&h, 3999);		/* cell 3 */
	hist_add_abs(&h, 9000);		/* overflow: cell 3 */
	xeno_hist_stats(&h, &n, &avg, &sd);
	CHECK_EQ_LL(n, 4);
	CHECK_NEAR(avg, 2.0, 1e-12);
	/* Cells 1,1,3,3 about 2: variance 4/3 (unbiased). */
	CHECK_NEAR(sd, 1.1547005383792515, 1e-9);
	hist_init_mem(&h, 0, 1000, 4, c);
	hist_add_abs(&h, 100);
	xeno_hist_stats(&h, &n, &avg, &sd);
	CHECK_NEAR(sd, 0.0, 1e-12);
}

UNIT_TEST(timer_missed_periods)
{
	CHECK_EQ_LL(timer_missed(1, 500, 100000), 0);
	CHECK_EQ_LL(timer_missed(4, 500, 100000), 3);
	/* Methods without a tick count: lateness decides. */
	CHECK_EQ_LL(timer_missed(0, 99999, 100000), 0);
	CHECK_EQ_LL(timer_missed(0, 100000, 100000), 1);
	CHECK_EQ_LL(timer_missed(0, 350000, 100000), 3);
	CHECK_EQ_LL(timer_missed(0, -20, 100000), 0);
}

UNIT_TEST(timer_hms)
{
	char b[32];

	hms(b, sizeof(b), 0);
	CHECK(!strcmp(b, "00:00:00"));
	hms(b, sizeof(b), 3 * 3600 + 25 * 60 + 7);
	CHECK(!strcmp(b, "03:25:07"));
}

/* Run fn into a memory buffer and return it. */
static char outbuf[8192];

static FILE *mem(void)
{
	memset(outbuf, 0, sizeof(outbuf));
	return fmemopen(outbuf, sizeof(outbuf) - 1, "w");
}

UNIT_TEST(timer_rtd_line_layout)
{
	static struct timer_run run;
	static struct timer_config cfg;
	static struct timer_cpu c[2];
	struct timer_second s;
	FILE *f = mem();

	memset(&run, 0, sizeof(run));
	memset(&cfg, 0, sizeof(cfg));
	memset(c, 0, sizeof(c));
	cfg.lines = 2;
	cfg.period_us = 100;
	cfg.prio = 99;
	run.cfg = &cfg;
	run.ncpu = 1;
	run.cpu = c;
	c[0].run = c[1].run = &run;
	c[1].cpu = 1;
	c[0].sum.min = c[1].sum.min = 1485;
	c[0].sum.max = c[1].sum.max = 83739;
	second_reset(&s, 1);
	second_add(&s, 1485);
	second_add(&s, 3933);
	second_add(&s, 83739);
	s.overruns = 0;
	s.msw = 0;
	timer_print_second(f, &c[0], &s, 0);
	timer_print_second(f, &c[0], &s, 1);
	/* Several CPUs: each line names its CPU. */
	run.ncpu = 2;
	timer_print_second(f, &c[1], &s, 3);
	fclose(f);
	CHECK(!strcmp(outbuf,
		"RTT|  00:00:01  (periodic user-mode task, 100 us period, priority 99)\n"
		"RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst\n"
		"RTD|      1.485|     29.719|     83.739|       0|     0|      1.485|     83.739\n"
		"RTD|      1.485|     29.719|     83.739|       0|     0|      1.485|     83.739\n"
		"RTD|      1.485|     29.719|     83.739|       0|     0|      1.485|     83.739|CPU1\n"));
}

UNIT_TEST(timer_histfile_layout)
{
	static struct timer_run r;
	static struct timer_cpu c;
	struct stats *s = &c.all;
	FILE *f;

	c.run = &r;
	CHECK(stats_init(s, 0, 100, 30) == 0);	/* 3 us of 100 ns buckets */
	stats_add(s, -50);	/* early: row 0 */
	stats_add(s, 700);	/* row 0 */
	stats_add(s, 1200);	/* row 1 */
	stats_add(s, 1900);	/* row 1 */
	stats_add(s, 5000);	/* overflow */
	f = mem();
	timer_histfile(f, (const struct timer_cpu *[]){ &c }, 1, false);
	fclose(f);
	stats_free(s);
	CHECK(!strcmp(outbuf,
		"# Histogram\n"
		"000000 000002\n"
		"000001 000002\n"
		"000002 000000\n"
		"# Total: 000000004\n"
		"# Min Latencies: 00000\n"
		"# Avg Latencies: 00001\n"
		"# Max Latencies: 00005\n"
		"# Histogram Overflows: 00001\n"
		"# Histogram Overflow at cycle number:\n"
		"# Thread 0:\n\n") || (fprintf(stderr, "%s", outbuf), 0));
}

/* Several CPUs: a tab-separated column each, as cyclictest's threads. */
UNIT_TEST(timer_histfile_columns)
{
	static struct timer_run r;
	static struct timer_cpu c[2];
	static uint64_t cycles[2] = { 4, 7 };
	FILE *f;

	r.face.over_max = 2;
	c[0].run = c[1].run = &r;
	CHECK(stats_init(&c[0].all, 0, 1000, 2) == 0);
	CHECK(stats_init(&c[1].all, 0, 1000, 2) == 0);
	stats_add(&c[0].all, 500);
	stats_add(&c[1].all, 1500);
	stats_add(&c[1].all, 1600);
	stats_add(&c[1].all, 9000);
	/* Three overflows, two cycle numbers kept. */
	c[1].over_cycle = cycles;
	c[1].nover = 3;
	f = mem();
	timer_histfile(f, (const struct timer_cpu *[]){ &c[0], &c[1] }, 2, true);
	fclose(f);
	stats_free(&c[0].all);
	stats_free(&c[1].all);
	CHECK(!strcmp(outbuf,
		"# Histogram\n"
		"000000 000001\t000000\t000001\n"
		"000001 000000\t000002\t000002\n"
		"# Total: 000000001 000000002 000000003\n"
		"# Min Latencies: 00000 00001\n"
		"# Avg Latencies: 00000 00004\n"
		"# Max Latencies: 00000 00009 00009\n"
		"# Histogram Overflows: 00000 00001 00001\n"
		"# Histogram Overflow at cycle number:\n"
		"# Thread 0:\n"
		"# Thread 1: 00004 00007 # 00001 others\n\n") || (fprintf(stderr, "%s", outbuf), 0));
}

/* Two CPUs' seconds folded: best and worst of both, the mean of every
 * per-second average, overruns and switches added. */
UNIT_TEST(timer_summary_merge)
{
	struct timer_summary x, y;
	struct timer_second s;

	CHECK(summary_init(&x, 1000, 10) == 0);
	CHECK(summary_init(&y, 1000, 10) == 0);
	second_reset(&s, 1);
	second_add(&s, 2000);
	s.overruns = 1;
	s.msw = 0;
	summary_add(&x, &s);
	second_reset(&s, 1);
	second_add(&s, 1000);
	second_add(&s, 9000);
	s.overruns = 2;
	s.msw = 3;
	summary_add(&y, &s);
	summary_merge(&x, &y);
	CHECK_EQ_LL(x.seconds, 2);
	CHECK_EQ_LL(x.min, 1000);
	CHECK_EQ_LL(x.max, 9000);
	CHECK_NEAR(summary_avg(&x), 3500.0, 1e-9);
	CHECK_EQ_LL(x.overruns, 3);
	CHECK_EQ_LL(x.msw, 3);
	CHECK_EQ_LL(hist_total(&x.hmax), 2);
	summary_free(&x);
	summary_free(&y);
}

UNIT_TEST(timer_timerlat_lines)
{
	struct timerlat_sample s = { 0 };

	CHECK(timerlat_parse("          <idle>-0       [000] d.h1.    54.029328: #1     context    irq timer_latency       932 ns",
			     &s) == 0);
	CHECK(s.irq);
	CHECK_EQ_LL(s.seq, 1);
	CHECK_EQ_LL(s.ts, 54029328000LL);
	CHECK_EQ_LL(s.lat, 932);
	CHECK(timerlat_parse("   timerlat/1-867     [001] .....  1054.029339123: #12    context thread timer_latency     11700 ns",
			     &s) == 0);
	CHECK(!s.irq);
	CHECK_EQ_LL(s.seq, 12);
	CHECK_EQ_LL(s.ts, 1054029339123LL);
	CHECK_EQ_LL(s.lat, 11700);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context thread timer_latency 4 us",
			     &s) == 0);
	CHECK_EQ_LL(s.ts, 2500000000LL);
	CHECK_EQ_LL(s.lat, 4000);
	/* 6.1 PREEMPT_RT: seven flag characters (the lazy preempt count). */
	CHECK(timerlat_parse("     timerlat/1-187     [001] .......    12.006001: #9     context thread timer_latency     51200 ns",
			     &s) == 0);
	CHECK(!s.irq && s.seq == 9 && s.ts == 12006001000LL && s.lat == 51200);
	CHECK(timerlat_parse("# tracer: timerlat", &s) == -1);
	CHECK(timerlat_parse("#   TASK-PID  CPU#  TIMESTAMP  ID  CONTEXT  LATENCY",
			     &s) == -1);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context user timer_latency 4 ns",
			     &s) == -1);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context irq timer_latency 4 ms",
			     &s) == -1);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #x context irq timer_latency 4 ns",
			     &s) == -1);
	CHECK(timerlat_parse("CPU:1 [LOST 1234 EVENTS]", &s) == -1);
	/* Linux 6.5+'s user-space mode (-t 3): the thread's return to the
	 * kernel, its own context (kernel/trace/trace_output.c). */
	CHECK(timerlat_parse("  rtlat-timerlat-u-900 [001] .....  70.000123: #5     context user-ret timer_latency     20500 ns",
			     &s) == 0);
	CHECK(!s.irq && s.ctx == TL_CTX_URET && s.seq == 5 && s.lat == 20500);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context thread timer_latency 4 ns",
			     &s) == 0);
	CHECK(s.ctx == TL_CTX_THREAD);
	/* Found by fuzz_timerlat: #-9 read as 2^64 - 9 took the grid back. */
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #-9 context irq timer_latency 4 ns",
			     &s) == -1);
	/* Beyond 2^31 s, or below 0: not timerlat's, and sums would overflow. */
	CHECK(timerlat_parse("  x-1 [000] ....  99999999999.5: #3 context irq timer_latency 4 ns",
			     &s) == -1);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context irq timer_latency 9999999999999999 us",
			     &s) == -1);
	CHECK(timerlat_parse("  x-1 [000] ....  2.5: #3 context irq timer_latency -4 ns",
			     &s) == -1);
}

static struct timer_config feed_cfg;

/* A sampler with just what the feed touches: statistics and the ring. */
static struct timer_cpu *feed_run(long long duration_s)
{
	static struct timer_run r;
	static struct timer_cpu run;

	memset(&r, 0, sizeof(r));
	memset(&run, 0, sizeof(run));
	memset(&feed_cfg, 0, sizeof(feed_cfg));
	feed_cfg.duration_s = duration_s;
	r.cfg = &feed_cfg;
	r.ncpu = 1;
	r.cpu = &run;
	run.run = &r;
	CHECK(stats_init(&run.all, 0, 100, 100) == 0);
	CHECK(hist_init(&run.avg, 0, 1000, 10) == 0);
	return &run;
}

static void feed_run_free(struct timer_cpu *run)
{
	stats_free(&run->all);
	hist_free(&run->avg);
}

UNIT_TEST(timer_feed_groups_seconds_after_warmup)
{
	struct timer_cpu *run = feed_run(2);
	struct timer_feed f;
	struct timer_second s = { 0 };
	int64_t k;

	feed_init(&f, run, false);
	/* Four wake-ups a second; second 0 is the warm-up. */
	for (k = 0; k < 12; k++)
		CHECK(feed_sample(&f, k * NSEC_PER_SEC / 4, 1000 + k, k == 5));
	/* The first wake-up of second 3 ends a -T 2 run, unrecorded. */
	CHECK(!feed_sample(&f, 3 * NSEC_PER_SEC, 5000, 0));
	feed_end(&f);
	CHECK(ring_pop(&run->ring, &s));
	CHECK_EQ_LL(s.index, 1);
	CHECK_EQ_LL(s.n, 4);
	CHECK_EQ_LL(s.min, 1004);
	CHECK_EQ_LL(s.max, 1007);
	CHECK_EQ_LL(s.overruns, 1);
	CHECK(!s.partial);
	CHECK(ring_pop(&run->ring, &s));
	CHECK_EQ_LL(s.index, 2);
	CHECK_EQ_LL(second_avg(&s), 1009);
	CHECK(!ring_pop(&run->ring, &s));
	CHECK_EQ_LL(run->all.n, 8);
	CHECK_EQ_LL(hist_total(&run->avg), 8);
	CHECK_EQ_LL(run->overruns, 1);
	feed_run_free(run);
}

UNIT_TEST(timer_feed_partial_second_at_the_end)
{
	struct timer_cpu *run = feed_run(0);
	struct timer_feed f;
	struct timer_second s = { 0 };

	feed_init(&f, run, false);
	CHECK(feed_sample(&f, NSEC_PER_SEC / 2, 7, 0));		/* warm-up */
	CHECK(feed_sample(&f, NSEC_PER_SEC + 10, 3, 0));
	CHECK(feed_sample(&f, NSEC_PER_SEC + 20, -2, 0));
	feed_end(&f);
	CHECK(ring_pop(&run->ring, &s));
	CHECK(s.partial);
	CHECK_EQ_LL(s.n, 2);
	CHECK_EQ_LL(s.min, -2);
	CHECK(!ring_pop(&run->ring, &s));
	/* Stopped in the warm-up: nothing to hand over. */
	feed_init(&f, run, false);
	CHECK(feed_sample(&f, 0, 1, 0));
	feed_end(&f);
	CHECK(!ring_pop(&run->ring, &s));
	feed_run_free(run);
}

/* The timerlat reader on canned trace_pipe text: header lines skipped,
 * only the mode's context taken, lines split across reads, seconds on
 * the tracer's clock with the first one the warm-up. */
UNIT_TEST(timer_timerlat_reader)
{
	static const char *const text[] = {
		"# tracer: timerlat\n",
		"  <idle>-0 [001] d.h1.  100.000010: #1 context    irq timer_latency  900 ns\n",
		" timerlat/1-9 [001] .....  100.000020: #1 context thread timer_latency  20000 ns\n",
		" timerlat/1-9 [001] .....  100.500010: #2 context thread timer_la",
		"tency  10000 ns\n  <idle>-0 [001] d.h1.  101.000030: #3 context    irq timer_latency  800 ns\n",
		" timerlat/1-9 [001] .....  101.005000: #3 context thread timer_latency  5000 ns\n",
		" timerlat/1-9 [001] .....  101.507000: #4 context thread timer_latency  7000 ns\n",
	};
	struct timer_cpu *run = feed_run(0);
	struct timer_second s = { 0 };
	int fds[2];
	unsigned int i;

	feed_cfg.mode = MODE_KERNEL_TASK;
	feed_cfg.period_us = 500000;
	CHECK(pipe(fds) == 0);
	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		CHECK(write(fds[1], text[i], strlen(text[i])) == (ssize_t)strlen(text[i]));
	close(fds[1]);
	CHECK_EQ_LL(timerlat_read(run, fds[0]), EIO);
	close(fds[0]);
	/* Start: the first thread expiry, 100.000020 - 20 us. */
	CHECK_EQ_LL(run->start_ns, 100000000000LL);
	CHECK(ring_pop(&run->ring, &s));
	CHECK(s.partial);
	CHECK_EQ_LL(s.index, 1);
	CHECK_EQ_LL(s.n, 2);
	CHECK_EQ_LL(s.min, 5000);
	CHECK_EQ_LL(s.max, 7000);
	CHECK(!ring_pop(&run->ring, &s));
	CHECK_EQ_LL(run->overruns, 0);
	CHECK_EQ_LL(run->tlr.lost, 0);
	feed_run_free(run);
}

#define TL_P	100000000LL	/* 100 ms */

/* Canned activations k = 0..39 at 100 s + k * 100 ms, as the tracer
 * writes them (an IRQ line, then the thread's; #N counts those that
 * fired). */
struct tl_plan {
	int64_t lat[40];	/* the thread's latency; 0: 20 us */
	int64_t late[40];	/* its stamp that much after its clock read */
	bool skipped[40];	/* not fired: no lines, #N does not move */
	bool lost[40];		/* fired (#N moves), lines lost */
};

static struct timer_cpu *timerlat_canned(long long mode, long long duration_s,
					 const struct tl_plan *pl)
{
	struct timer_cpu *run = feed_run(duration_s);
	static char text[16384];
	uint64_t seq = 0;
	size_t len = 0;
	int fds[2], k;

	feed_cfg.mode = mode;
	feed_cfg.period_us = TL_P / 1000;
	for (k = 0; k < 40; k++) {
		int64_t exp = 100 * NSEC_PER_SEC + k * TL_P;
		int64_t lat = pl->lat[k] ? pl->lat[k] : 20000;
		int64_t thr = exp + lat + pl->late[k];

		if (pl->skipped[k])
			continue;
		seq++;
		if (pl->lost[k])
			continue;
		len += (size_t)snprintf(text + len, sizeof(text) - len,
			"  <idle>-0 [001] d.h1. %lld.%09lld: #%llu context    irq timer_latency 5000 ns\n"
			" timerlat/1-9 [001] ..... %lld.%09lld: #%llu context thread timer_latency %lld ns\n",
			(long long)((exp + 5000) / NSEC_PER_SEC), (long long)((exp + 5000) % NSEC_PER_SEC),
			(unsigned long long)seq, (long long)(thr / NSEC_PER_SEC),
			(long long)(thr % NSEC_PER_SEC), (unsigned long long)seq, (long long)lat);
	}
	CHECK(len < sizeof(text) - 1);
	CHECK(pipe(fds) == 0);
	CHECK(write(fds[1], text, len) == (ssize_t)len);
	close(fds[1]);
	/* To the end of the text, or -T's end first. */
	CHECK_EQ_LL(timerlat_read(run, fds[0]), duration_s ? 0 : EIO);
	close(fds[0]);
	return run;
}

/*
 * Thread k = 15 is 350 ms late: k = 16..18 skipped. Thread k = 21 is
 * 199.99 ms late and its next clock read crossed 200 ms: k = 22 and 23
 * skipped, one more than its latency says. Thread k = 27 is stamped
 * 700 ms after its clock read (a guest stalled in between): no skip.
 * The lines of k = 31 and 32 are lost.
 */
static void tl_plan_busy(struct tl_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->lat[15] = 350000000;
	pl->skipped[16] = pl->skipped[17] = pl->skipped[18] = true;
	pl->lat[21] = 199990000;
	pl->skipped[22] = pl->skipped[23] = true;
	pl->late[27] = 700000000;
	pl->lost[31] = pl->lost[32] = true;
}

/* What both modes see of it: 23 samples after the warm-up (k = 10..39
 * less 5 skipped and 2 lost) in seconds of 7, 8 and 8, the late stamp in
 * its own second; 3 then 5 overruns; 2 lost. */
static void timerlat_busy_check(struct timer_cpu *run, int64_t lat)
{
	static const uint64_t n[] = { 7, 8, 8 }, over[] = { 3, 5, 5 };
	struct timer_second s = { 0 };
	unsigned int i;

	CHECK_EQ_LL(run->start_ns, 100 * NSEC_PER_SEC);
	for (i = 0; i < 3; i++) {
		CHECK(ring_pop(&run->ring, &s));
		CHECK_EQ_LL(s.index, i + 1);
		CHECK_EQ_LL(s.n, n[i]);
		CHECK_EQ_LL(s.overruns, over[i]);
	}
	CHECK(s.partial);
	CHECK(!ring_pop(&run->ring, &s));
	CHECK_EQ_LL(run->all.n, 23);
	CHECK_EQ_LL(run->overruns, 5);
	CHECK_EQ_LL(run->tlr.lost, 2);
	CHECK_EQ_LL(run->all.max, lat);
	feed_run_free(run);
}

/* Mode 1: the thread's samples. */
UNIT_TEST(timerlat_thread_skips_lost_and_late_stamps)
{
	struct tl_plan pl;

	tl_plan_busy(&pl);
	timerlat_busy_check(timerlat_canned(MODE_KERNEL_TASK, 0, &pl), 350000000);
}

/* Mode 2: the IRQ's samples; the skips are the thread's. */
UNIT_TEST(timerlat_irq_takes_the_threads_skips)
{
	struct tl_plan pl;

	tl_plan_busy(&pl);
	timerlat_busy_check(timerlat_canned(MODE_TIMER_IRQ, 0, &pl), 5000);
}

/*
 * -T 2: the seconds measured are 101 s to 103 s. Thread k = 8 (warm-up)
 * is 250 ms late: k = 9..10 skipped, of which k = 10 is the run's. Thread
 * k = 28 is 450 ms late: k = 29..32 skipped, of which only k = 29 is
 * before the end; k = 33 ends the run. Every period of the run is a
 * sample or an overrun: 20 of them.
 */
UNIT_TEST(timerlat_skips_count_where_their_periods_are)
{
	struct tl_plan pl;
	struct timer_cpu *run;
	struct timer_second s = { 0 };

	memset(&pl, 0, sizeof(pl));
	pl.lat[8] = 250000000;
	pl.skipped[9] = pl.skipped[10] = true;
	pl.lat[28] = 450000000;
	pl.skipped[29] = pl.skipped[30] = pl.skipped[31] = pl.skipped[32] = true;
	run = timerlat_canned(MODE_KERNEL_TASK, 2, &pl);
	CHECK(ring_pop(&run->ring, &s));
	CHECK_EQ_LL(s.n, 9);
	CHECK_EQ_LL(s.overruns, 1);
	CHECK(ring_pop(&run->ring, &s));
	CHECK_EQ_LL(s.n, 9);
	CHECK_EQ_LL(s.overruns, 2);
	CHECK(!ring_pop(&run->ring, &s));
	CHECK_EQ_LL(run->all.n + run->overruns, 20);
	feed_run_free(run);
}
