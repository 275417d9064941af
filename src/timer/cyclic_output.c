// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cyclic_output.c - what "rtlat cyclictest" writes, in rt-tests
 * cyclictest 2.40's layout: the cpu_dma_latency line, the policy line and
 * a T: line per thread (redrawn on a terminal, once at the end
 * otherwise), the -h histogram, --spike and -b lines, and its JSON
 * (num_threads, resolution_in_ns, thread.N) with rtlat's ns figures as
 * extra keys. Values come from the timer's samplers, in ns.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/json.h"
#include "system/msr.h"
#include "system/outfile.h"
#include "system/rtsetup.h"
#include "harness/results.h"
#include "harness/status.h"
#include "timer/cyclic.h"
#include "timer/timer_ckpt.h"
#include "timer/timer_output.h"
#include "timer/timer_run.h"

/* The face's config holds the timer's first (cyclic.h). */
static const struct cyc_config *cfg_of(const struct timer_run *run)
{
	return (const struct cyc_config *)run->cfg;
}

/* cyclictest's unit: us, truncated, or ns with -N. */
static long long unit(const struct timer_run *run, double ns)
{
	return cfg_of(run)->nsecs ? (long long)ns : (long long)(ns / NSEC_PER_USEC);
}

void cyc_banner(struct timer_run *run)
{
	if (rt_dma_held())
		printf("# /dev/cpu_dma_latency set to %lldus\n", cfg_of(run)->latency);
	fflush(stdout);
}

/* "fifo", or "fifo/other" when a thread runs SCHED_OTHER (priority 0),
 * as cyclictest names them ("other/other" by default). */
static void policy_line(FILE *f, const struct timer_run *run)
{
	static const char *const names[] = { "fifo", "rr", "other", "other", "batch", "idle" };
	const struct cyc_config *c = cfg_of(run);
	char load[128] = "";
	FILE *l = fopen("/proc/loadavg", "r");
	bool other = false;
	int i;

	for (i = 0; i < run->ncpu; i++)
		other |= run->plan[i].prio == 0;

	if (l) {
		if (fgets(load, sizeof(load), l))
			load[strcspn(load, "\n")] = '\0';
		fclose(l);
	}
	fprintf(f, "policy: %s%s: loadavg: %s          \n\n",
		names[c->policy], other && c->policy < CYC_POLICY_BATCH ? "/other" : "", load);
}

/* --smi: the SMIs on the thread's CPU since the start, read now (an
 * interrupt on that CPU, at the display's pace, as cyclictest's own
 * read in the thread); 0 where it cannot be read. */
static long long smi_count(const struct timer_cpu *c)
{
	long long d = smi_since(c->run->face.smi, c->cpu >= 0 ? c->cpu : c->last_cpu);

	return d > 0 ? d : 0;
}

static void t_line(FILE *f, const struct timer_cpu *c, uint64_t n, int64_t min,
		   int64_t act, double avg, int64_t max)
{
	const struct timer_run *run = c->run;
	bool ns = cfg_of(run)->nsecs;

	fprintf(f, "T:%2d (%5d) P:%2d I:%lld C:%7llu Min:%7lld Act:%*lld Avg:%*lld Max:%8lld",
		(int)(c - run->cpu), __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE), c->plan.prio,
		(long long)(c->plan.period_ns / NSEC_PER_USEC), (unsigned long long)n,
		n ? unit(run, (double)min) : 0, ns ? 8 : 5, n ? unit(run, (double)act) : 0,
		ns ? 8 : 5, n ? unit(run, avg) : 0, n ? unit(run, (double)max) : 0);
	if (run->face.smi)	/* cyclictest's column */
		fprintf(f, " SMI:%8lld", smi_count(c));
	fputc('\n', f);
}

/* A thread's line from the seconds the display thread folded so far. */
static void cyc_t_line_now(FILE *f, const struct timer_cpu *c)
{
	const struct timer_summary *s = &c->sum;

	t_line(f, c, s->samples, s->min, s->last,
	       s->samples ? s->lat_sum / (double)s->samples : 0, s->max);
}

static void status_block(FILE *f, const struct timer_run *run)
{
	int i;

	fprintf(f, "#---------------------------\n# cyclictest current status:\n");
	for (i = 0; i < run->ncpu; i++)
		cyc_t_line_now(f, &run->cpu[i]);
	fprintf(f, "#---------------------------\n");
}

/*
 * SIGUSR1: the status block on stderr; SIGUSR2: the same in
 * /dev/shm/cyclictest<pid>, replacing what was there (rt-tests'
 * get_cyclictest_snapshot sends it and reads the file).
 */
void cyc_status(struct timer_run *run, int bits)
{
	int fd = run->face.status_fd;
	struct status_block b;
	FILE *f;

	/* Only when stderr takes it at once: the display thread, which
	 * the run's end joins, never waits on a pipe nobody reads. */
	if ((bits & RUN_STATUS_USR1) && status_open(&b)) {
		status_block(b.f, run);
		status_emit(&b, &run->face.status_dropped, run->prog);
	}
	/* From the start each time: the dup shares the file's offset. */
	if (!(bits & RUN_STATUS_USR2) || fd < 0 || ftruncate(fd, 0) ||
	    lseek(fd, 0, SEEK_SET))
		return;
	f = fdopen(dup(fd), "w");
	if (!f)
		return;
	status_block(f, run);
	fclose(f);
}

/* -F: a reader there gets the T: lines (no reader: nothing, no wait). */
static void fifo_write(struct timer_run *run)
{
	int fd = open(cfg_of(run)->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f;
	int i;

	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return;
	}
	for (i = 0; i < run->ncpu; i++)
		cyc_t_line_now(f, &run->cpu[i]);
	fclose(f);
}

/* Each poll on a terminal: the seconds the display thread folded. */
void cyc_draw(struct timer_run *run, bool final)
{
	static int drawn;
	int i;

	cyc_extra_poll(run);
	if (cfg_of(run)->fifo && !final)
		fifo_write(run);
	if (final || run->cfg->quiet || run->face.verbose || !isatty(STDOUT_FILENO) ||
	    !run->cpu[0].sum.samples || !cyc_extra_redraw(run))
		return;
	if (drawn)
		printf("\033[%dA", run->ncpu + 2);
	policy_line(stdout, run);
	for (i = 0; i < run->ncpu; i++)
		cyc_t_line_now(stdout, &run->cpu[i]);
	drawn = 1;
	fflush(stdout);
}

/* The end: the exact figures, once (in place of the last redraw). */
static void final_block(const struct timer_run *run, bool policy)
{
	int i;

	if (policy && isatty(STDOUT_FILENO) && run->cpu[0].sum.samples)
		printf("\033[%dA", run->ncpu + 2);
	if (policy)
		policy_line(stdout, run);
	for (i = 0; i < run->ncpu; i++) {
		const struct stats *a = &run->cpu[i].all;

		t_line(stdout, &run->cpu[i], a->n, a->min, a->last, stats_mean(a), a->max);
	}
}

static void spikes(FILE *f, const struct timer_run *run)
{
	uint64_t total = 0, k;
	int i;

	if (!run->face.spike_ns)
		return;
	fputc('\n', f);
	for (i = 0; i < run->ncpu; i++) {
		const struct timer_cpu *c = &run->cpu[i];

		for (k = 0; k < c->nspikes && k < run->face.spike_max; k++)
			fprintf(f, "T:%2d Spike:%8lld: TS: %12lld\n", i,
				unit(run, (double)c->spikes[k].lat),
				(long long)(c->spikes[k].when / NSEC_PER_USEC));
		total += c->nspikes;
	}
	fprintf(f, "spikes = %llu\n\n", (unsigned long long)total);
}

static void break_lines(FILE *f, const struct timer_run *run)
{
	int i, b = __atomic_load_n(&run->broke, __ATOMIC_ACQUIRE);

	/* With -b, as cyclictest: the ids always, the break if one came. */
	if (!run->face.break_ns)
		return;
	fprintf(f, "# Thread Ids:");
	for (i = 0; i < run->ncpu; i++)
		fprintf(f, " %d", run->cpu[i].tid);
	fputc('\n', f);
	if (b)
		fprintf(f, "# Break thread: %d\n# Break value: %lld\n",
			run->cpu[b - 1].tid, unit(run, (double)run->broke_ns));
}

static void hist_block(FILE *f, const struct timer_run *run, long long arg)
{
	const struct timer_cpu *c[TIMER_MAX_CPUS];
	int i;

	(void)arg;
	for (i = 0; i < run->ncpu; i++)
		c[i] = &run->cpu[i];
	timer_histfile(f, c, run->ncpu, cfg_of(run)->histofall_us && run->ncpu > 1);
}

static int histogram(const struct timer_run *run)
{
	const struct cyc_config *c = cfg_of(run);
	struct outfile of;
	FILE *f;

	if (!run->face.over_ns)
		return 0;
	if (!c->histfile) {
		hist_block(stdout, run, 0);
		return 0;
	}
	f = outfile_open(&of, run->prog, "--histfile", c->histfile);
	if (!f)
		return -1;
	hist_block(f, run, 0);
	return outfile_close(&of, run->prog);
}

/*
 * The thread's "node": cyclictest 2.40 asks libnuma for its CPU's node,
 * and writes -1 under -S (which leaves NUMA out). Here from sysfs: the
 * cpuN/nodeM link; a kernel without NUMA has none, its one node is 0.
 */
static int cpu_node(const struct timer_run *run, int cpu)
{
	char path[64], name[32];
	struct dirent *e;
	int node = 0;
	DIR *d;

	if (cfg_of(run)->smp)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "node%d%31s", &node, name) == 1)
			break;
	closedir(d);
	return node;
}

static void json_thread(struct json *j, const struct timer_cpu *c)
{
	const struct timer_run *run = c->run;
	const struct stats *a = &c->all;
	const struct histogram *h = &a->hist;
	int cpu = c->cpu >= 0 ? c->cpu : c->last_cpu;
	char key[24];
	uint32_t k;

	snprintf(key, sizeof(key), "%d", (int)(c - run->cpu));
	json_obj_open(j, key);
	json_obj_open(j, "histogram");
	for (k = 0; run->face.over_ns && k < h->l.nlinear; k++) {
		uint64_t n = h->count[k] + (k ? 0 : h->underflow);

		snprintf(key, sizeof(key), "%u", k);
		if (n)
			json_uint(j, key, n);
	}
	json_obj_close(j);
	json_uint(j, "cycles", a->n);
	json_int(j, "min", a->n ? unit(run, (double)a->min) : 0);
	json_int(j, "max", a->n ? unit(run, (double)a->max) : 0);
	/* cyclictest's avg has two decimals, in its unit. */
	json_double(j, "avg", round(stats_mean(a) / (cfg_of(run)->nsecs ? 1.0 : 1000.0) * 100.0) / 100.0);
	json_int(j, "cpu", cpu);
	json_int(j, "node", cpu_node(run, cpu));
	/* rtlat's own, at full resolution (cyclictest's readers skip them). */
	json_int(j, "min_ns", a->n ? a->min : 0);
	json_double(j, "avg_ns", stats_mean(a));
	json_int(j, "max_ns", a->n ? a->max : 0);
	json_uint(j, "overruns", c->overruns);
	if (run->face.smi)
		json_int(j, "smi_count", smi_count(c));
	json_obj_close(j);
}

static int write_json(struct test_run *t, const struct timer_run *run, int status)
{
	struct json *j;
	int i;

	t->res.format_version = CYC_RT_TESTS_VERSION;
	j = results_open(&t->res, status);
	if (!j)
		return run->cfg->common.json ? -1 : 0;
	json_int(j, "num_threads", run->ncpu);
	json_int(j, "resolution_in_ns", cfg_of(run)->nsecs ? 1 : 0);
	json_obj_open(j, "thread");
	for (i = 0; i < run->ncpu; i++)
		json_thread(j, &run->cpu[i]);
	json_obj_close(j);
	return results_close(&t->res, j);
}

/* --checkpoint: the files of the report, from a snapshot (timer_ckpt.c). */
static void cyc_ckpt_write(struct test_run *t, struct timer_run *snap)
{
	if (checkpoint_writes(&t->res.ckpt, cfg_of(snap)->histfile))
		histogram(snap);
	timer_summary(&t->res, snap, t->ops->series[0]);
	write_json(t, snap, 0);
}

void cyc_checkpoint(struct test_run *t)
{
	timer_checkpoint_with(t, cyc_ckpt_write);
}

int cyc_report(struct test_run *t, int status)
{
	struct timer_run *run = t->state;

	if (t->error)
		fprintf(stderr, "%s: %s\n", run->prog, t->error);
	if (!run->cpu)
		return status;
	timer_fold(run);
	cyc_extra_end(run);
	/* As cyclictest: -q with -h or -H (on stdout or in --histfile)
	 * prints no T: lines; then the spikes, the histogram, -b's lines. */
	if ((!run->cfg->quiet || !run->face.over_ns) && !run->face.verbose)
		final_block(run, !run->cfg->quiet);
	spikes(stdout, run);
	if (histogram(run))
		status = 1;
	break_lines(stdout, run);
	fflush(stdout);
	timer_report_end(run);
	timer_summary(&t->res, run, t->ops->series[0]);
	if (write_json(t, run, status))
		status = 1;
	return status;
}
