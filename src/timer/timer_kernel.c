// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_kernel.c - modes 1 (in-kernel periodic task) and 2 (timer IRQ)
 * through the kernel's timerlat tracer: the kernel measures its own
 * thread's and its timer IRQ's wake-up latency at the period asked, on
 * the CPU asked; a reader thread takes the samples from trace_pipe and
 * groups them per second exactly as the user-mode sampler does.
 *
 * The tracer is taken only where it is free (nop, no other rtlat, no
 * instance running an osnoise tracer), and its settings (current_tracer,
 * tracing_on, trace_clock, osnoise/cpus, osnoise/timerlat_period_us) are
 * saved and restored at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/opts.h"
#include "system/rtsetup.h"
#include "timer/timer_kernel.h"
#include "timer/timer_sample.h"
#include "timer/timer_tlu.h"
#include "system/tracefs.h"

/* A line longer than this is not timerlat's: dropped. */
#define TL_LINE 512
/* Stamps and latencies beyond 2^31 s (68 years) are not timerlat's
 * either: refused, so that no sum of them overflows. */
#define TL_MAX_NS	((int64_t)INT32_MAX * NSEC_PER_SEC)

/* "54.029328" before ": #" -> ns; any number of fraction digits. */
static int parse_stamp(const char *line, const char *colon, int64_t *ns)
{
	const char *p = colon;
	long long sec = 0, frac = 0;
	int digits = 0;

	while (p > line && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))
		p--;
	if (sscanf(p, "%lld", &sec) != 1 || sec < 0 || sec > INT32_MAX)
		return -1;
	p = strchr(p, '.');
	if (p && p < colon) {
		for (p++; p < colon && digits < 9; p++, digits++)
			frac = frac * 10 + (*p - '0');
		while (digits++ < 9)
			frac *= 10;
	}
	*ns = sec * NSEC_PER_SEC + frac;
	return 0;
}

/*
 * A sample line of the timerlat tracer, e.g.
 *   <idle>-0 [000] d.h1  54.029328: #1  context    irq timer_latency  932 ns
 */
int timerlat_parse(const char *line, struct timerlat_sample *s)
{
	const char *ctx = strstr(line, " context ");
	const char *lat = strstr(line, "timer_latency");
	const char *colon = strstr(line, ": #");
	char word[16], unit[8];
	unsigned long long seq;
	long long v;

	if (!ctx || !lat || !colon || colon > ctx)
		return -1;
	if (colon[3] < '0' || colon[3] > '9' ||
	    sscanf(colon, ": #%llu", &seq) != 1 || seq > INT64_MAX)
		return -1;
	if (sscanf(ctx, " context %15s", word) != 1)
		return -1;
	if (sscanf(lat, "timer_latency %lld %7s", &v, unit) != 2 || v < 0)
		return -1;
	if (!strcmp(unit, "us") && v <= TL_MAX_NS / NSEC_PER_USEC)
		v *= NSEC_PER_USEC;
	else if (strcmp(unit, "ns") != 0 || v > TL_MAX_NS)
		return -1;
	if (parse_stamp(line, colon, &s->ts))
		return -1;
	s->irq = !strcmp(word, "irq");
	s->ctx = s->irq ? TL_CTX_IRQ : !strcmp(word, "thread") ? TL_CTX_THREAD :
		 !strcmp(word, "user-ret") ? TL_CTX_URET : -1;
	if (s->ctx < 0)
		return -1;
	s->seq = seq;
	s->lat = v;
	return 0;
}

static int tl_write(const char *file, const char *val)
{
	return tracefs_write(tracefs_dir(), file, val);
}

static void tl_read(const char *file, char *buf, size_t len)
{
	tracefs_read(tracefs_dir(), file, buf, len);
}

/* trace_clock lists the clocks with the one in use in brackets. */
static void tl_read_clock(char *buf, size_t len)
{
	tracefs_read_choice(tracefs_dir(), "trace_clock", buf, len);
}

/* The kernel's measuring thread for mode 1 gets -P, as the original's. */
static void set_kthread_prio(int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	char want[32], path[300], comm[32];
	struct dirent *d;
	DIR *proc = opendir("/proc");
	bool found = false;

	snprintf(want, sizeof(want), "timerlat/%d", cpu);
	while (proc && (d = readdir(proc)) && !found) {
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			found = !strcmp(comm, want);
		}
		fclose(f);
		/* The system call, not libc's wrapper: musl's (the static
		 * build's) sets no other thread's policy, it fails ENOSYS. */
		if (found && syscall(SYS_sched_setscheduler, atoi(d->d_name),
				     SCHED_FIFO, &sp))
			rt_warn("cannot set %s to SCHED_FIFO %d: %s", want, prio,
				strerror(errno));
	}
	if (proc)
		closedir(proc);
	if (!found)
		rt_warn("no kernel thread %s to set to priority %d", want, prio);
}

/* The run's CPUs as osnoise/cpus takes them: "1", "0,2,3". */
static void run_cpus(const struct timer_run *run, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < run->ncpu && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "",
				       run->cpu[i].cpu);
}

static int tl_fail(struct timer_run *run, char *err, size_t len,
		   const char *what, int e)
{
	snprintf(err, len, "timerlat: %s: %s", what, strerror(-e));
	timerlat_stop(run);
	return -1;
}

/*
 * The trace stamped on CLOCK_MONOTONIC, the clock of timerlat's own
 * timer and of the rest of rtlat: the samples' seconds are then the
 * run's. The default clock ("local", or "global" where the TSC is
 * unstable, as in most guests) is sched_clock, a clock of its own, kept
 * only within a tick of the timer's.
 */
static void tl_set_clock(struct timer_run *run)
{
	int e = tl_write("trace_clock", "mono");

	if (e)
		rt_warn("timerlat: cannot set trace_clock to mono (%s): the seconds follow the tracer's %s clock",
			strerror(-e), run->tl.clock[0] ? run->tl.clock : "own");
}

/* The osnoise tracers of an instance (rtla's) share osnoise/'s
 * settings with the top level's: the first instance running one. */
static bool instance_busy(char *who, size_t len)
{
	char path[300], tracer[64];
	DIR *dir;
	struct dirent *d;
	bool busy = false;

	snprintf(path, sizeof(path), "%s/instances", tracefs_dir());
	dir = opendir(path);
	while (dir && !busy && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "instances/%s/current_tracer", d->d_name);
		tl_read(path, tracer, sizeof(tracer));
		busy = !strcmp(tracer, "timerlat") || !strcmp(tracer, "osnoise");
		if (busy)
			snprintf(who, len, "the instance %.64s runs the %s tracer", d->d_name, tracer);
	}
	if (dir)
		closedir(dir);
	return busy;
}

/*
 * The tracer is this run's alone, or it is not started: another rtlat
 * holds its lock (tracefs.h), or another user's tracer is set (another
 * tool's, or a run killed before it could restore nop). Refused, never
 * taken over: restoring what a second user found would leave timerlat
 * running, and both would read one trace_pipe.
 */
static int tl_take(struct timerlat *tl, char *err, size_t len)
{
	const char *how = "echo nop > current_tracer once it is done";
	char who[160];
	int e = tracefs_lock_tracer(tracefs_dir());

	if (e == -EWOULDBLOCK) {
		snprintf(err, len, "timerlat: the tracer is in use by another rtlat run (-t 1 or 2); one run at a time");
		return -1;
	}
	if (e) {
		snprintf(err, len, "timerlat: cannot lock %s: %s", tracefs_dir(), strerror(-e));
		return -1;
	}
	tl_read("current_tracer", tl->tracer, sizeof(tl->tracer));
	if (tl->tracer[0] && strcmp(tl->tracer, "nop") != 0) {
		snprintf(err, len, "timerlat: the %s tracer is in use (%s/current_tracer), not rtlat's to take; %s",
			 tl->tracer, tracefs_dir(), how);
		tracefs_unlock_tracer();
		return -1;
	}
	if (instance_busy(who, sizeof(who))) {
		snprintf(err, len, "timerlat: %s (rtla?), not rtlat's to take; wait until it is done", who);
		tracefs_unlock_tracer();
		return -1;
	}
	return 0;
}

int timerlat_start(struct timer_cpu *c, char *err, size_t len)
{
	struct timer_run *run = c->run;
	struct timerlat *tl = &run->tl;
	char val[64], path[320], pipe[64], list[256];
	int e, i;

	if (tl_take(tl, err, len))
		return -1;
	tl_read("tracing_on", tl->on, sizeof(tl->on));
	tl_read("osnoise/cpus", tl->cpus, sizeof(tl->cpus));
	tl_read("osnoise/timerlat_period_us", tl->period, sizeof(tl->period));
	tl_read_clock(tl->clock, sizeof(tl->clock));
	tl->active = true;
	for (i = 0; i < run->ncpu; i++) {
		struct tl_reader *r = &run->cpu[i].tlr;

		r->pipe_fd = -1;
		r->seq0 = r->skips = r->pending = r->last_seq = r->lost = 0;
		r->thr_open = false;
		r->len = 0;
	}
	snprintf(val, sizeof(val), "%lld", run->cfg->period_us);
	e = tl_write("osnoise/timerlat_period_us", val);
	if (e)
		return tl_fail(run, err, len, "osnoise/timerlat_period_us", e);
	tl_set_clock(run);
	/* -t 3: no kernel threads of timerlat's; rtlat's takes the
	 * wake-ups (timer_tlu.c). Set before the tracer starts them. */
	if (run->cfg->mode == MODE_TIMERLAT_USER) {
		e = tl_write("osnoise/options", "NO_OSNOISE_WORKLOAD");
		if (e)
			return tl_fail(run, err, len, "osnoise/options NO_OSNOISE_WORKLOAD", e);
		tl->no_workload = true;
	}
	run_cpus(run, list, sizeof(list));
	e = tl_write("osnoise/cpus", list);
	if (!e)
		e = tl_write("trace", "");
	if (!e)
		e = tl_write("current_tracer", "timerlat");
	if (!e)
		e = tl_write("tracing_on", "1");
	if (e)
		return tl_fail(run, err, len, "setting up the tracer", e);
	/* -t 3 on several CPUs: a reader per CPU, on its own buffer. */
	for (i = 0; i < run->ncpu; i++) {
		if (run->ncpu > 1)
			snprintf(pipe, sizeof(pipe), "per_cpu/cpu%d/trace_pipe", run->cpu[i].cpu);
		else
			snprintf(pipe, sizeof(pipe), "trace_pipe");
		snprintf(path, sizeof(path), "%s/%s", tracefs_dir(), pipe);
		run->cpu[i].tlr.pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (run->cpu[i].tlr.pipe_fd < 0)
			return tl_fail(run, err, len, pipe, -errno);
	}
	if (run->cfg->mode == MODE_KERNEL_TASK)
		set_kthread_prio(c->cpu, (int)run->cfg->prio);
	return 0;
}

void timerlat_stop(struct timer_run *run)
{
	struct timerlat *tl = &run->tl;
	char all[256];
	int i;

	if (!tl->active)
		return;
	tl->active = false;
	for (i = 0; run->cpu && i < run->ncpu; i++) {
		if (run->cpu[i].tlr.pipe_fd >= 0)
			close(run->cpu[i].tlr.pipe_fd);
		run->cpu[i].tlr.pipe_fd = -1;
	}
	tl_write("current_tracer", tl->tracer[0] ? tl->tracer : "nop");
	if (tl->no_workload)
		tl_write("osnoise/options", "OSNOISE_WORKLOAD");
	tl->no_workload = false;
	cpus_online_text(all, sizeof(all));
	tl_write("osnoise/cpus", tl->cpus[0] ? tl->cpus : all);
	if (tl->period[0])
		tl_write("osnoise/timerlat_period_us", tl->period);
	if (tl->clock[0])
		tl_write("trace_clock", tl->clock);
	if (tl->on[0])
		tl_write("tracing_on", tl->on);
	tracefs_unlock_tracer();
}

/*
 * Activations timerlat skipped. Its kernel thread, woken a period late
 * or more, skips those that have passed (wait_next_period), and #N counts
 * only the activations that fired. A thread lat ns late skipped at least
 * (lat - 1) / period of them, and one more where its next clock read
 * crossed another period: the next activation's stamp says which. A stamp
 * is never early; a late one (a guest stalled between the clock read and
 * the trace event) can at most make it one too many. Counting on the
 * stamps alone once reported 1439 overruns beside 2246 samples in 3000
 * periods; on the latency alone, one too few wherever that read crossed
 * a period. Where lines were lost in between, the stamps alone.
 */
static uint64_t decide_skips(struct tl_reader *tl, const struct timerlat_sample *s,
			     int64_t period)
{
	uint64_t fired = s->seq - tl->thr_seq, n;
	int64_t d = s->ts - s->lat - tl->thr_exp;

	if (!tl->thr_open || s->seq <= tl->thr_seq)
		return 0;
	tl->thr_open = false;
	if (period <= 0)
		return tl->thr_min;
	/* Periods from that activation to this one, on the stamps. */
	n = d > period / 2 ? (uint64_t)((d + period / 2) / period) : 0;
	if (fired > 1)
		return n > fired ? n - fired : 0;
	return n >= tl->thr_min + 2 ? tl->thr_min + 1 : tl->thr_min;
}

static void note_thread(struct tl_reader *tl, const struct timerlat_sample *s,
			int64_t period)
{
	tl->thr_seq = s->seq;
	tl->thr_exp = s->ts - s->lat;
	tl->thr_min = s->lat > 0 && period > 0 ? (uint64_t)((s->lat - 1) / period) : 0;
	tl->thr_open = true;
}

/*
 * Where activation s lies: on the timer's grid, counted (#N plus the
 * skips before it) from the first sample's stamp, as the user-mode
 * sampler counts its own; a late stamp would put a sample into a later
 * second.
 */
static int64_t grid_expiry(struct tl_reader *tl, const struct timerlat_sample *s,
			   int64_t period)
{
	int64_t at = s->ts - s->lat;

	/* Anchored anew where the count would pass the stamps' range, never
	 * before the last expiry. */
	if (!tl->seq0 || s->seq - tl->seq0 + tl->skips >
	    (uint64_t)(TL_MAX_NS / (period > 0 ? period : 1))) {
		if (tl->seq0 && at <= tl->last_exp)
			at = tl->last_exp + period;
		tl->seq0 = s->seq;
		tl->origin = at;
		tl->skips = 0;
	}
	tl->last_exp = tl->origin + period * (int64_t)(s->seq - tl->seq0 + tl->skips);
	return tl->last_exp;
}

/* Activations of the mode measured whose lines the trace lost (its
 * buffer overflowed: the reader fell behind), after the warm-up. */
static void count_lost(struct timer_cpu *c, const struct timerlat_sample *s,
		       int64_t exp)
{
	struct tl_reader *tl = &c->tlr;

	if (tl->last_seq && s->seq > tl->last_seq + 1 &&
	    exp - c->start_ns >= TIMER_WARMUP_S * NSEC_PER_SEC)
		tl->lost += s->seq - tl->last_seq - 1;
	tl->last_seq = s->seq;
}

/*
 * Of the k activations skipped just before exp (at exp - j * period,
 * j = 1..k), those in the seconds measured: after the warm-up, before the
 * end of -T. A skip is the run's where its period is.
 */
static uint64_t skips_measured(const struct timer_cpu *c, int64_t exp,
			       uint64_t k, int64_t period)
{
	int64_t from = c->start_ns + TIMER_WARMUP_S * NSEC_PER_SEC;
	int64_t to = from + c->run->cfg->duration_s * NSEC_PER_SEC;
	int64_t hi = exp >= from ? (exp - from) / period : 0;	/* j <= hi */
	int64_t lo = 1;

	if (c->run->cfg->duration_s && exp >= to)
		lo = (exp - to) / period + 1;
	if ((uint64_t)hi > k)
		hi = (int64_t)k;
	return hi >= lo ? (uint64_t)(hi - lo + 1) : 0;
}

/* One line: feed it if it is a sample of the mode measured. */
static bool take_line(struct timer_feed *sp, const char *line)
{
	struct timer_cpu *c = sp->c;
	struct tl_reader *tl = &c->tlr;
	int64_t period = c->run->cfg->period_us * NSEC_PER_USEC;
	bool irq_mode = c->run->cfg->mode == MODE_TIMER_IRQ;
	struct timerlat_sample s;
	uint64_t k, missed;
	int64_t exp;

	if (timerlat_parse(line, &s))
		return true;
	/* -t 3: each context's figures beside the series (the thread's);
	 * the return to user is no activation of its own. */
	if (c->run->cfg->mode == MODE_TIMERLAT_USER)
		tlu_context(c, &s);
	if (s.ctx == TL_CTX_URET)
		return true;
	/* #N only grows: an activation seen already is no new one. */
	if (s.irq == irq_mode && s.seq <= tl->last_seq)
		return true;
	k = decide_skips(tl, &s, period);
	tl->skips += k;
	tl->pending += k;
	if (!s.irq)
		note_thread(tl, &s, period);
	if (s.irq != irq_mode)
		return true;
	exp = grid_expiry(tl, &s, period);
	if (!c->start_ns)
		c->start_ns = exp;
	count_lost(c, &s, exp);
	missed = period > 0 ? skips_measured(c, exp, tl->pending, period) : 0;
	tl->pending = 0;
	/* The activation past -T ends the run unrecorded: the skips before
	 * it that were in the run's seconds still count. */
	if (c->run->cfg->duration_s &&
	    exp - c->start_ns >= (TIMER_WARMUP_S + c->run->cfg->duration_s) * NSEC_PER_SEC) {
		c->overruns += missed;
		missed = 0;
	}
	return feed_sample(sp, exp, s.lat, missed);
}

/* Split tl->buf into lines; keep an unfinished last line. */
static bool take_lines(struct timer_feed *sp, struct tl_reader *tl)
{
	char *buf = tl->buf, *p = buf, *nl;
	bool more = true;

	buf[tl->len] = '\0';
	while (more && (nl = strchr(p, '\n'))) {
		*nl = '\0';
		more = take_line(sp, p);
		p = nl + 1;
	}
	tl->len -= (size_t)(p - buf);
	memmove(buf, p, tl->len);
	if (tl->len >= TL_LINE)
		tl->len = 0;	/* a line that long is not timerlat's */
	return more;
}

int timerlat_read(struct timer_cpu *c, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct tl_reader *tl = &c->tlr;
	struct timer_feed sp;
	bool empty = true;
	ssize_t n;
	int err = 0;

	feed_init(&sp, c, false);
	tl->len = 0;
	while (!atomic_load_explicit(&c->run->stop, memory_order_relaxed)) {
		/* Read until empty, then wait. A CPU's own trace_pipe is
		 * polled ready only once its buffer is buffer_percent full:
		 * read it at each timeout too. */
		if (empty && poll(&pfd, 1, 100) < 0)
			continue;
		n = read(fd, tl->buf + tl->len, sizeof(tl->buf) - 1 - tl->len);
		empty = n < 0 && errno == EAGAIN;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		tl->len += (size_t)n;
		if (!take_lines(&sp, tl))
			break;
	}
	feed_end(&sp);
	return err;
}

void *timer_kernel_reader(void *arg)
{
	struct timer_cpu *c = arg;

	prctl(PR_SET_NAME, "rtlat-timerlat");
	c->error = timerlat_read(c, c->tlr.pipe_fd);
	atomic_store_explicit(&c->sampler_done, 1, memory_order_release);
	return NULL;
}
