// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer_kernel.c - modes 1 (in-kernel periodic task) and 2 (timer IRQ)
 * through the kernel's timerlat tracer: the kernel measures its own
 * thread's and its timer IRQ's wake-up latency at the period asked, on
 * the CPU asked; a reader thread takes the samples from trace_pipe and
 * groups them per second exactly as the user-mode sampler does.
 *
 * The tracer's settings (current_tracer, osnoise/cpus,
 * osnoise/timerlat_period_us) are saved and restored at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/opts.h"
#include "core/rtsetup.h"
#include "timer/timer.h"
#include "core/tracefs.h"

#define TL_LINE 512

static struct {
	bool active;
	int pipe_fd;
	char tracer[64];
	char cpus[256];
	char period[32];
} tl = { .pipe_fd = -1 };

/* "54.029328" before ": #" -> ns; any number of fraction digits. */
static int parse_stamp(const char *line, const char *colon, int64_t *ns)
{
	const char *p = colon;
	long long sec = 0, frac = 0;
	int digits = 0;

	while (p > line && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))
		p--;
	if (sscanf(p, "%lld", &sec) != 1)
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
int timerlat_parse(const char *line, bool *irq, int64_t *ts_ns, int64_t *lat_ns)
{
	const char *ctx = strstr(line, " context ");
	const char *lat = strstr(line, "timer_latency");
	const char *colon = strstr(line, ": #");
	char word[16], unit[8];
	long long v;

	if (!ctx || !lat || !colon || colon > ctx)
		return -1;
	if (sscanf(ctx, " context %15s", word) != 1)
		return -1;
	if (sscanf(lat, "timer_latency %lld %7s", &v, unit) != 2)
		return -1;
	if (!strcmp(unit, "us"))
		v *= NSEC_PER_USEC;
	else if (strcmp(unit, "ns") != 0)
		return -1;
	if (parse_stamp(line, colon, ts_ns))
		return -1;
	*irq = !strcmp(word, "irq");
	if (!*irq && strcmp(word, "thread") != 0)
		return -1;
	*lat_ns = v;
	return 0;
}

uint64_t timerlat_missed(struct timerlat_grid *g, int64_t exp, int64_t period)
{
	uint64_t periods, skipped;

	if (!g->seen++ || period <= 0) {
		g->origin = exp;
		return 0;
	}
	periods = exp > g->origin ?
		  (uint64_t)((exp - g->origin + period / 2) / period) + 1 : 1;
	skipped = periods > g->seen ? periods - g->seen : 0;
	if (skipped <= g->counted)
		return 0;
	skipped -= g->counted;
	g->counted += skipped;
	return skipped;
}

static int tl_write(const char *file, const char *val)
{
	return tracefs_write(tracefs_dir(), file, val);
}

static void tl_read(const char *file, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", tracefs_dir(), file);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
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
		if (found && sched_setscheduler(atoi(d->d_name), SCHED_FIFO, &sp))
			rt_warn("cannot set %s to SCHED_FIFO %d: %s", want, prio,
				strerror(errno));
	}
	if (proc)
		closedir(proc);
	if (!found)
		rt_warn("no kernel thread %s to set to priority %d", want, prio);
}

static int tl_fail(char *err, size_t len, const char *what, int e)
{
	snprintf(err, len, "timerlat: %s: %s", what, strerror(-e));
	timerlat_stop();
	return -1;
}

int timerlat_start(struct timer_cpu *c, char *err, size_t len)
{
	char val[64], path[256];
	int e;

	tl_read("current_tracer", tl.tracer, sizeof(tl.tracer));
	tl_read("osnoise/cpus", tl.cpus, sizeof(tl.cpus));
	tl_read("osnoise/timerlat_period_us", tl.period, sizeof(tl.period));
	tl.active = true;
	memset(&c->grid, 0, sizeof(c->grid));
	snprintf(val, sizeof(val), "%lld", c->run->cfg->period_us);
	e = tl_write("osnoise/timerlat_period_us", val);
	if (e)
		return tl_fail(err, len, "osnoise/timerlat_period_us", e);
	snprintf(val, sizeof(val), "%d", c->cpu);
	e = tl_write("osnoise/cpus", val);
	if (!e)
		e = tl_write("trace", "");
	if (!e)
		e = tl_write("current_tracer", "timerlat");
	if (!e)
		e = tl_write("tracing_on", "1");
	if (e)
		return tl_fail(err, len, "setting up the tracer", e);
	snprintf(path, sizeof(path), "%s/trace_pipe", tracefs_dir());
	tl.pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (tl.pipe_fd < 0)
		return tl_fail(err, len, "trace_pipe", -errno);
	if (c->run->cfg->mode == MODE_KERNEL_TASK)
		set_kthread_prio(c->cpu, (int)c->run->cfg->prio);
	return 0;
}

void timerlat_stop(void)
{
	char all[256];

	if (!tl.active)
		return;
	tl.active = false;
	if (tl.pipe_fd >= 0)
		close(tl.pipe_fd);
	tl.pipe_fd = -1;
	tl_write("current_tracer", tl.tracer[0] ? tl.tracer : "nop");
	cpus_online_text(all, sizeof(all));
	tl_write("osnoise/cpus", tl.cpus[0] ? tl.cpus : all);
	if (tl.period[0])
		tl_write("osnoise/timerlat_period_us", tl.period);
}

/* One line: feed it if it is a sample of the mode measured. */
static bool take_line(struct timer_feed *sp, const char *line)
{
	struct timer_cpu *c = sp->c;
	int64_t ts, lat;
	bool irq;

	if (timerlat_parse(line, &irq, &ts, &lat))
		return true;
	if (irq != (c->run->cfg->mode == MODE_TIMER_IRQ))
		return true;
	/* Group on the tracer's clock: the expiry was lat before the stamp. */
	if (!c->start_ns)
		c->start_ns = ts - lat;
	return feed_sample(sp, ts - lat, lat,
			   timerlat_missed(&c->grid, ts - lat,
					   c->run->cfg->period_us * NSEC_PER_USEC));
}

/* Split buf into lines; keep an unfinished last line. */
static bool take_lines(struct timer_feed *sp, char *buf, size_t *len)
{
	char *p = buf, *nl;
	bool more = true;

	buf[*len] = '\0';
	while (more && (nl = strchr(p, '\n'))) {
		*nl = '\0';
		more = take_line(sp, p);
		p = nl + 1;
	}
	*len -= (size_t)(p - buf);
	memmove(buf, p, *len);
	if (*len >= TL_LINE * 8 - 1)
		*len = 0;	/* a line that long is not timerlat's */
	return more;
}

int timerlat_read(struct timer_cpu *c, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	static char buf[TL_LINE * 8];
	struct timer_feed sp;
	size_t len = 0;
	ssize_t n;
	int err = 0;

	feed_init(&sp, c, false);
	while (!__atomic_load_n(&c->run->stop, __ATOMIC_RELAXED)) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		len += (size_t)n;
		if (!take_lines(&sp, buf, &len))
			break;
	}
	feed_end(&sp);
	return err;
}

void *timer_kernel_reader(void *arg)
{
	struct timer_cpu *c = arg;

	prctl(PR_SET_NAME, "rtlat-timerlat");
	c->error = timerlat_read(c, tl.pipe_fd);
	__atomic_store_n(&c->sampler_done, 1, __ATOMIC_RELEASE);
	return NULL;
}
