// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * deadline_output.c - the deadline threads' setup and what the run says
 * of their jobs: the counts' lines, each CPU's "deadline" object in the
 * JSON, the admission control's refusals.
 */
#include <stdio.h>
#include <string.h>
#include "measure/clock.h"
#include "util/json.h"
#include "timer/timer_json.h"
#include "timer/timer_run.h"
#include "deadline/deadline.h"
#include "deadline/deadline_wait.h"

void dl_thread_init(struct dl_thread *th, long long runtime_us,
		    long long deadline_us, long long period_us, long long work_us)
{
	th->runtime_ns = runtime_us * NSEC_PER_USEC;
	th->deadline_ns = deadline_us * NSEC_PER_USEC;
	th->period_ns = period_us * NSEC_PER_USEC;
	th->work_ns = work_us * NSEC_PER_USEC;
}

int dl_setup(struct test_run *t)
{
	int err = dl_signals();

	return err ? err : timer_setup(t);
}

static const struct dl_run *run_of(const struct timer_cpu *c)
{
	return (const struct dl_run *)c->run;
}

/* The counts of sampler i, or of every sampler (i < 0). */
static void counts(const struct dl_run *run, int i, uint64_t *jobs,
		   uint64_t *misses, uint64_t *overruns)
{
	int k;

	*jobs = *misses = *overruns = 0;
	for (k = 0; k < run->t.ncpu; k++) {
		if (i >= 0 && k != i)
			continue;
		*jobs += run->th[k].jobs;
		*misses += run->th[k].misses;
		*overruns += atomic_load_explicit(&run->th[k].overruns,
						  memory_order_relaxed);
	}
}

void dl_json(struct json *j, const struct timer_cpu *c, int i)
{
	const struct dl_run *run = run_of(c);
	const struct dl_thread *th = &run->th[i < 0 ? 0 : i];
	uint64_t jobs, misses, overruns;
	char why[768];

	counts(run, run->t.ncpu == 1 ? 0 : i, &jobs, &misses, &overruns);
	json_obj_open(j, "deadline");
	json_int(j, "runtime_ns", th->runtime_ns);
	json_int(j, "deadline_ns", th->deadline_ns);
	json_int(j, "period_ns", th->period_ns);
	json_uint(j, "jobs", jobs);
	json_uint(j, "misses", misses);
	json_uint(j, "overruns", overruns);
	if (i >= 0 && th->err) {
		dl_refusal(run, th, c->cpu, why, sizeof(why));
		json_str(j, "refused", why);
	}
	json_obj_close(j);
}

void dl_print_counts(FILE *f, const struct dl_run *run)
{
	uint64_t jobs, misses, overruns;
	int i;

	for (i = 0; i < run->t.ncpu; i++) {
		counts(run, i, &jobs, &misses, &overruns);
		fprintf(f, "deadline: thread %d: %llu jobs, %llu deadline misses, %llu runtime overruns\n",
			i, (unsigned long long)jobs, (unsigned long long)misses,
			(unsigned long long)overruns);
	}
}

bool dl_say_refusals(const struct dl_run *run)
{
	char why[768], last[768] = "";
	bool any = false;
	int i;

	for (i = 0; i < run->t.ncpu; i++) {
		if (!run->th[i].err)
			continue;
		any = true;
		dl_refusal(run, &run->th[i], run->t.cpu[i].cpu, why, sizeof(why));
		if (strcmp(why, last) != 0)	/* the same refusal once */
			fprintf(stderr, "%s: %s\n", run->t.prog, why);
		snprintf(last, sizeof(last), "%s", why);
	}
	return any;
}

/*
 * Both faces' report: the timer's figures folded, the face's text, the
 * refusals said (exit 1), the fleet's series and the timer's JSON.
 */
int dl_report_with(struct test_run *t, int status,
		   void (*text)(struct dl_run *run, long long actual_s, long long requested_s),
		   int (*json)(struct test_run *t, struct dl_run *run, int status))
{
	struct dl_run *run = t->state;
	struct timer_run *tr = &run->t;
	long long actual = timer_actual_seconds(tr, clock_now_ns());
	long long requested = tr->cfg->duration_s ? tr->cfg->duration_s : actual;

	if (t->error)
		fprintf(stderr, "%s: %s\n", tr->prog, t->error);
	if (!tr->cpu)
		return status;
	timer_fold(tr);
	if (t->explain && tr->cpu[0].start_ns)
		explain_set_start(t->explain, tr->cpu[0].start_ns);
	text(run, actual, requested);
	fflush(stdout);
	if (dl_say_refusals(run))
		status = 1;
	timer_summary(&t->res, tr, t->ops->series[0]);
	if (json ? json(t, run, status) : timer_write_json(tr, &t->res, actual, requested, status))
		status = 1;
	return status;
}
