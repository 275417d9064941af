// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * osnoise.c - "rtlat osnoise": the kernel's osnoise tracer (what rtla
 * osnoise top shows). A kernel thread per CPU spins for --runtime of
 * every --period with preemption and interrupts on and attributes each
 * stretch it lost to its class; the tracer's line per period gives the
 * runtime, the noise, the largest single noise and the counts by class
 * (hardware, NMI, IRQ, softirq, thread). Per CPU, summed over the run:
 * the noise's share, the largest period's noise and single noise, the
 * counts. A subcommand of its own rather than a mode of bintime: the
 * kernel measures, no rtlat thread does, so none of bintime's options
 * (priority, clock, loops, --explain) would apply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hwlat/hwlat.h"
#include "hwlat/hwlat_test.h"
#include "measure/clock.h"
#include "system/tracefs.h"
#include "util/json.h"
#include "harness/results.h"
#include "harness/test.h"

#define OSN_MAX_CPU	CPU_LIST_MAX

static const char *const osn_series[] = { NULL };

struct osn_config {
	long long duration_s, period_us, runtime_us, threshold_us;
	struct cpu_list cpus;
	bool quiet;
	struct test_common common;
};

/* One CPU's periods, summed. */
struct osn_cpu {
	uint64_t periods, runtime, noise, max_noise, max_single;
	uint64_t hw, nmi, irq, softirq, thread;
};

/* What the tracer held before the run. */
struct osn_saved {
	char tracer[64], on[8], thresh[32], cpus[300], period[32], runtime[32];
	bool taken;
};

struct osn_run {
	struct osn_saved saved;
	struct tpipe pipe;
	struct osn_cpu cpu[OSN_MAX_CPU];
	int64_t t_start, t_end;
	const char *skipped, *error;
	char why[300];
};

static const struct opt osn_opts[] = {
	OPT_ROW_DURATION(struct osn_config, duration_s, 10,
			 "run for TIME (N[s|m|h|d]); 0: until stopped"),
	{ .short_name = 'c', .long_name = "cpus", .type = OPT_CPU_LIST,
	  .arg = OPT_ARG_REQUIRED, .argname = "LIST",
	  .dest = OPT_AT(struct osn_config, cpus),
	  .help = "the CPUs the tracer's threads run on (osnoise/cpus: \"1-3\"); default: every online CPU" },
	{ .long_name = "period", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 1, .max = 10000000, .dflt = 1000000,
	  .dest = OPT_AT(struct osn_config, period_us),
	  .help = "one line per CPU every US microseconds (osnoise/period_us)", .key = "period_us" },
	{ .long_name = "runtime", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 100, .max = 10000000, .dflt = 1000000,
	  .dest = OPT_AT(struct osn_config, runtime_us),
	  .help = "of each period, spin for US microseconds (osnoise/runtime_us; at most --period)",
	  .key = "runtime_us" },
	{ .long_name = "threshold", .type = OPT_INT, .arg = OPT_ARG_REQUIRED,
	  .argname = "US", .min = 1, .max = 1000000, .dflt = 5,
	  .dest = OPT_AT(struct osn_config, threshold_us),
	  .help = "a stretch the thread lost over US microseconds is noise (tracing_thresh)",
	  .key = "threshold_us" },
	OPT_ROW_QUIET(struct osn_config, quiet, "no header"),
	OPT_ROW_HELP,
	TEST_COMMON_OPTS(OPT_AT_STRUCT(struct osn_config, common),
			 "write the settings and each CPU's noise to FILE as JSON"),
	OPT_END
};

static int osn_check(struct test_run *t)
{
	const struct osn_config *c = t->cfg;

	if (c->runtime_us > c->period_us) {
		opts_error(t->prog, opts_find(t->opts, 0, "runtime"),
			   "%lld is over --period %lld; accepted: 100 to %lld",
			   c->runtime_us, c->period_us, c->period_us);
		return -1;
	}
	return 0;
}

/*
 * A sample line of the osnoise tracer (the kernel's trace_osnoise_print):
 *   <...>-859 [000] .... 81.637220: 1000000 190 99.98100 9 18 0 1007 18 1
 * runtime, noise, % of the CPU available, max single noise (us), then the
 * counts of hardware, NMI, IRQ, softirq and thread noise.
 */
int osnoise_parse(const char *line, int *cpu, struct osn_sample *s)
{
	const char *br = strchr(line, '[');
	const char *end = br ? strchr(br, ']') : NULL;
	const char *colon = end ? strstr(end, ": ") : NULL;
	unsigned long long pct_i, pct_f;

	if (!colon || sscanf(br, "[%d]", cpu) != 1 || *cpu < 0 || *cpu >= OSN_MAX_CPU)
		return -1;
	if (sscanf(colon + 2, "%llu %llu %llu.%llu %llu %llu %llu %llu %llu %llu",
		   &s->runtime, &s->noise, &pct_i, &pct_f, &s->max_single, &s->hw,
		   &s->nmi, &s->irq, &s->softirq, &s->thread) != 10)
		return -1;
	return 0;
}

static void on_line(const char *line, void *arg)
{
	struct osn_run *r = arg;
	struct osn_sample s;
	struct osn_cpu *c;
	int cpu;

	if (osnoise_parse(line, &cpu, &s))
		return;
	c = &r->cpu[cpu];
	c->periods++;
	c->runtime += s.runtime;
	c->noise += s.noise;
	if (s.noise > c->max_noise)
		c->max_noise = s.noise;
	if (s.max_single > c->max_single)
		c->max_single = s.max_single;
	c->hw += s.hw;
	c->nmi += s.nmi;
	c->irq += s.irq;
	c->softirq += s.softirq;
	c->thread += s.thread;
}

static int osn_write(const char *file, const char *val)
{
	return tracefs_write(tracefs_dir(), file, val);
}

static void osn_read(const char *file, char *buf, size_t len)
{
	tracefs_read(tracefs_dir(), file, buf, len);
}

static int osn_take(struct osn_saved *s, char *err, size_t len)
{
	if (tracer_take("osnoise", s->tracer, sizeof(s->tracer), err, len))
		return -1;
	osn_read("tracing_on", s->on, sizeof(s->on));
	osn_read("tracing_thresh", s->thresh, sizeof(s->thresh));
	osn_read("osnoise/cpus", s->cpus, sizeof(s->cpus));
	osn_read("osnoise/period_us", s->period, sizeof(s->period));
	osn_read("osnoise/runtime_us", s->runtime, sizeof(s->runtime));
	s->taken = true;
	return 0;
}

static void osn_stop(struct osn_run *r)
{
	struct osn_saved *s = &r->saved;
	char all[256];

	if (!s->taken)
		return;
	s->taken = false;
	tpipe_close(&r->pipe);
	osn_write("tracing_on", "0");
	osn_write("current_tracer", s->tracer[0] ? s->tracer : "nop");
	if (s->thresh[0])
		osn_write("tracing_thresh", s->thresh);
	cpus_online_text(all, sizeof(all));
	osn_write("osnoise/cpus", s->cpus[0] ? s->cpus : all);
	if (s->period[0] && s->runtime[0])
		tracefs_write_pair("osnoise/period_us", s->period, "osnoise/runtime_us",
				   s->runtime, atoll(s->period), false);
	if (s->on[0])
		osn_write("tracing_on", s->on);
	tracefs_unlock_tracer();
}

static int osn_start(struct osn_run *r, const struct osn_config *c, char *err, size_t len)
{
	char period[32], runtime[32], val[300];
	int e;

	r->pipe.fd = -1;
	if (osn_take(&r->saved, err, len))
		return -1;
	snprintf(period, sizeof(period), "%lld", c->period_us);
	snprintf(runtime, sizeof(runtime), "%lld", c->runtime_us);
	snprintf(val, sizeof(val), "%lld", c->threshold_us);
	e = osn_write("tracing_on", "0");
	if (!e)
		e = osn_write("trace", "");
	if (!e)
		e = tracefs_write_pair("osnoise/period_us", period, "osnoise/runtime_us",
				       runtime, atoll(r->saved.period), false);
	if (!e)
		e = osn_write("tracing_thresh", val);
	if (!e && c->cpus.n) {
		cpu_list_text(c->cpus.cpu, c->cpus.n, val, sizeof(val));
		e = osn_write("osnoise/cpus", val);
	}
	if (!e)
		e = osn_write("current_tracer", "osnoise");
	if (!e)
		e = tpipe_open(&r->pipe);
	if (!e)
		e = osn_write("tracing_on", "1");
	if (e) {
		snprintf(err, len, "osnoise: setting up the tracer: %s", strerror(-e));
		osn_stop(r);
		return -1;
	}
	return 0;
}

static int osn_measure(struct test_run *t)
{
	const struct osn_config *c = t->cfg;
	struct osn_run *r = t->state;
	char err[400];
	int64_t end;
	int got;

	if (!tracefs_need(t->prog, r->why, sizeof(r->why)))
		r->skipped = r->why;
	else if (!tracefs_has_tracer("osnoise"))
		r->skipped = "this kernel has no osnoise tracer (CONFIG_OSNOISE_TRACER): not run";
	if (r->skipped) {
		printf("Skipped: %s\n", r->skipped);
		return 0;
	}
	if (osn_start(r, c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", t->prog, err);
		r->error = "the osnoise tracer could not be set up";
		return 1;
	}
	r->t_start = clock_now_ns();
	end = c->duration_s ? r->t_start + c->duration_s * NSEC_PER_SEC : 0;
	while (!run_stop_requested && (!end || clock_now_ns() < end)) {
		got = tpipe_read(&r->pipe, on_line, r);
		if (got < 0) {
			r->error = "reading trace_pipe failed";
			break;
		}
		if (!got)
			tpipe_wait();
	}
	tpipe_read(&r->pipe, on_line, r);
	r->t_end = clock_now_ns();
	osn_stop(r);
	return r->error ? 1 : 0;
}

/* The share of the runtime the CPU was available, percent. */
static double available(const struct osn_cpu *c)
{
	return c->runtime ? 100.0 - 100.0 * (double)c->noise / (double)c->runtime : 0;
}

static void print_table(const struct test_run *t)
{
	const struct osn_config *c = t->cfg;
	const struct osn_run *r = t->state;
	long long s = (r->t_end - r->t_start) / NSEC_PER_SEC;
	int i;

	if (!c->quiet) {
		printf("%*s\n", 58, "Operating System Noise");
		printf("duration: %3lld %02lld:%02lld:%02lld | time is in us\n",
		       s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
	}
	printf("CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single          HW          NMI          IRQ      Softirq       Thread\n");
	for (i = 0; i < OSN_MAX_CPU; i++) {
		const struct osn_cpu *o = &r->cpu[i];

		if (!o->periods)
			continue;
		printf("%3d #%-6llu %12llu %12llu %10.5f %11llu %12llu %12llu %12llu %12llu %12llu %12llu\n",
		       i, (unsigned long long)o->periods, (unsigned long long)o->runtime,
		       (unsigned long long)o->noise, available(o),
		       (unsigned long long)o->max_noise, (unsigned long long)o->max_single,
		       (unsigned long long)o->hw, (unsigned long long)o->nmi,
		       (unsigned long long)o->irq, (unsigned long long)o->softirq,
		       (unsigned long long)o->thread);
	}
}

static void json_cpu(struct json *j, int cpu, const struct osn_cpu *o)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", cpu);
	json_obj_open(j, key);
	json_uint(j, "periods", o->periods);
	json_uint(j, "runtime_us", o->runtime);
	json_uint(j, "noise_us", o->noise);
	json_double(j, "noise_share", o->runtime ? (double)o->noise / (double)o->runtime : 0);
	json_double(j, "available_pct", available(o));
	json_uint(j, "max_noise_us", o->max_noise);
	json_uint(j, "max_single_us", o->max_single);
	json_obj_open(j, "counts");
	json_uint(j, "hw", o->hw);
	json_uint(j, "nmi", o->nmi);
	json_uint(j, "irq", o->irq);
	json_uint(j, "softirq", o->softirq);
	json_uint(j, "thread", o->thread);
	json_obj_close(j);
	json_obj_close(j);
}

static int osn_report(struct test_run *t, int status)
{
	struct osn_run *r = t->state;
	struct json *j;
	int i;

	if (r->error)
		status = 1;
	if (!r->skipped && !r->error)
		print_table(t);
	fflush(stdout);
	j = results_open(&t->res, status);
	if (!j)
		return t->res.path ? 1 : status;
	json_obj_open(j, "settings");
	results_settings(j, t->opts, NULL);
	json_obj_close(j);
	if (r->skipped)
		json_str(j, "skipped", r->skipped);
	else
		json_null(j, "skipped");
	json_double(j, "covered_s", r->t_end > r->t_start ?
		    (double)(r->t_end - r->t_start) / NSEC_PER_SEC : 0);
	json_obj_open(j, "cpus");
	for (i = 0; i < OSN_MAX_CPU; i++)
		if (r->cpu[i].periods)
			json_cpu(j, i, &r->cpu[i]);
	json_obj_close(j);
	if (r->error)
		json_str(j, "error", r->error);
	if (results_close(&t->res, j))
		return 1;
	return status;
}

static void osn_teardown(struct test_run *t)
{
	osn_stop(t->state);
}

#define OSN_MAN_OUTPUT								\
	"As rtla osnoise top: \"Operating System Noise\", \"duration:   0 00:00:10 | "	\
	"time is in us\" (not with -q), the header \"CPU Period Runtime Noise % CPU Aval "	\
	"Max Noise Max Single HW NMI IRQ Softirq Thread\" and a line per CPU: the periods, "	\
	"the runtime and noise summed (us), the share of the CPU available, the largest "	\
	"period's noise and single noise, and the counts of hardware, NMI, IRQ, softirq "	\
	"and thread noise. Where the kernel has no osnoise tracer: \"Skipped: ...\" alone, "	\
	"exit 0. The tracer's settings (current_tracer, tracing_on, tracing_thresh, "	\
	"osnoise/cpus, period_us, runtime_us) are given back as they were."
#define OSN_MAN_JSON								\
	"\"settings\", \"skipped\" (why nothing ran, or null), \"covered_s\", \"cpus\" (per "	\
	"CPU: periods, runtime_us, noise_us, noise_share, available_pct, max_noise_us, "	\
	"max_single_us, counts: hw, nmi, irq, softirq, thread) and \"error\" where the "	\
	"tracer could not be set up."

const struct test_ops test_osnoise = {
	.name = "osnoise", .compat = NULL,
	.title = "the noise each CPU's kernel thread saw, by class, from the kernel's osnoise tracer",
	.family = "hardware", .series = osn_series,
	.opts = osn_opts, .common = OPT_AT_STRUCT(struct osn_config, common),
	.cfg_size = sizeof(struct osn_config), .run_size = sizeof(struct osn_run),
	.stop = STOP_BY_HANDLER,
	.check_args = "-D 1",
	.check_line = "^(CPU Period .*|Skipped: .*osnoise tracer.*)$",
	.man_output = OSN_MAN_OUTPUT, .man_json = OSN_MAN_JSON,
	.check = osn_check, .setup = tracer_test_setup, .measure = osn_measure,
	.report = osn_report, .teardown = osn_teardown,
};
