// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * checkpoint.c - --checkpoint and the live --openmetrics (checkpoint.h):
 * a thread that, every so often, has the test write its outputs so far.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "measure/clock.h"
#include "util/json.h"
#include "util/rfc3339.h"
#include "measure/stats.h"
#include "fleet/fleet.h"
#include "harness/checkpoint.h"
#include "harness/status.h"
#include "harness/starve.h"
#include "harness/test.h"

/* A series' histogram at the last checkpoint: the next one's step. */
struct ckpt_prev {
	char series[32];
	int thread;
	uint64_t n, underflow, overflow;
	int64_t max;
	uint32_t nbuckets;
	uint64_t *count;
};

struct checkpoint {
	struct test_run *t;
	long long files_s;		/* --checkpoint; 0: off */
	long long om_s;			/* --openmetrics' refresh; 0: off */
	double planned_s;		/* < 0: not known */
	int64_t start_ns, step_ns;	/* the run's, the last step's start */
	double step_s;			/* the step being written */
	int64_t next_f, next_m;		/* the next checkpoint, refresh */
	struct status_watch watch;	/* the run's status thread (status.h) */
	struct ckpt_prev *prev;
	int nprev;
	struct starve starve;		/* a measuring thread that cannot run */
};

/*
 * Reading what a measuring thread adds to, without a lock or an atomic
 * read-modify-write on its side (stats_add, hist_add are plain stores):
 * every counter, n, min, max, mean and m2 is a naturally aligned 64-bit
 * word the measuring thread writes with one store, and we read each once
 * with one relaxed atomic load, so each value read is one the word really
 * held (single-copy atomicity of aligned 64-bit accesses on the 64-bit
 * targets; on a 32-bit one a counter can be torn at the instant its low
 * word carries, once in 2^32 samples of that bucket, and the next
 * checkpoint has it right). The words are read at slightly different
 * instants, so they may disagree by the few samples added meanwhile: n is
 * therefore recomputed from the histogram copied (the percentiles walk a
 * histogram that sums to n), min and max are values that were seen, and
 * the mean and m2 are those of a sample count within a few of n: a
 * figure off by a handful of samples among millions, never a made-up one.
 * The final write, after the threads stopped, is exact.
 */
static void hist_read(struct histogram *dst, const struct histogram *live,
		      const uint64_t *count)
{
	uint32_t i;

	dst->underflow = __atomic_load_n(&live->underflow, __ATOMIC_RELAXED);
	dst->overflow = __atomic_load_n(&live->overflow, __ATOMIC_RELAXED);
	for (i = 0; i < dst->l.nbuckets; i++)
		dst->count[i] = __atomic_load_n(&count[i], __ATOMIC_RELAXED);
}

/*
 * A histogram is set up before its thread adds to it, but a test may set
 * one up while the run goes on (sync's tests one after the other): its
 * storage is read once (acquire: hist_init wrote the layout before it),
 * and one not set up yet is copied as empty (no bucket), never half.
 */
int checkpoint_hist_copy(struct histogram *dst, const struct histogram *live,
			 bool zero)
{
	uint64_t *count = __atomic_load_n(&live->count, __ATOMIC_ACQUIRE);

	memset(dst, 0, sizeof(*dst));
	if (!count || !live->l.nbuckets)
		return 0;
	if (hist_init_like(dst, live))
		return -ENOMEM;
	if (!zero)
		hist_read(dst, live, count);
	return 0;
}

int checkpoint_stats_copy(struct stats *dst, const struct stats *live)
{
	uint64_t n;
	uint32_t i;

	if (checkpoint_hist_copy(&dst->hist, &live->hist, false))
		return -ENOMEM;
	dst->min = __atomic_load_n(&live->min, __ATOMIC_RELAXED);
	dst->max = __atomic_load_n(&live->max, __ATOMIC_RELAXED);
	dst->last = __atomic_load_n(&live->last, __ATOMIC_RELAXED);
	__atomic_load(&live->mean, &dst->mean, __ATOMIC_RELAXED);
	__atomic_load(&live->m2, &dst->m2, __ATOMIC_RELAXED);
	dst->n = __atomic_load_n(&live->n, __ATOMIC_RELAXED);
	if (!dst->hist.count)
		return 0;
	n = dst->hist.underflow + dst->hist.overflow;
	for (i = 0; i < dst->hist.l.nbuckets; i++)
		n += dst->hist.count[i];
	dst->n = n;
	return 0;
}

void checkpoint_stats_free(struct stats *s)
{
	hist_free(&s->hist);
}

static struct ckpt_prev *prev_find(struct checkpoint *c, const struct fleet_rec *r)
{
	struct ckpt_prev *p;
	int i;

	for (i = 0; i < c->nprev; i++)
		if (c->prev[i].thread == r->thread &&
		    !strcmp(c->prev[i].series, r->series))
			return &c->prev[i];
	p = realloc(c->prev, (size_t)(c->nprev + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->prev = p;
	p = &p[c->nprev++];
	memset(p, 0, sizeof(*p));
	snprintf(p->series, sizeof(p->series), "%s", r->series);
	p->thread = r->thread;
	return p;
}

/* The highest sample of the step, from what the histogram gained: the
 * maximum itself when it rose, else the top of the highest bucket that
 * grew (a bound within one bucket); -1: no sample in the step. */
static long long step_max(const struct ckpt_prev *p, const struct stats *s)
{
	const struct histogram *h = &s->hist;
	uint32_t i;

	if (s->n == p->n)
		return -1;
	if (!p->n || s->max > p->max || !h->count || h->overflow > p->overflow ||
	    p->nbuckets != h->l.nbuckets)
		return s->max;
	for (i = h->l.nbuckets; i-- > 0;)
		if (h->count[i] > p->count[i]) {
			long long top = hist_bucket_last(h, i);

			return top < s->max ? top : s->max;
		}
	return s->min;	/* only the underflow grew */
}

void checkpoint_step(struct checkpoint *c, struct fleet_rec *r,
		     const struct stats *s)
{
	struct ckpt_prev *p = c ? prev_find(c, r) : NULL;
	const struct histogram *h = &s->hist;

	if (!p)
		return;
	r->step_s = c->step_s > 0 ? c->step_s : 1e-9;
	r->step_max = step_max(p, s);
	if (h->count && p->nbuckets != h->l.nbuckets) {
		free(p->count);
		p->count = calloc(h->l.nbuckets, sizeof(*p->count));
		p->nbuckets = p->count ? h->l.nbuckets : 0;
	}
	if (h->count && p->count)
		memcpy(p->count, h->count, p->nbuckets * sizeof(*p->count));
	p->n = s->n;
	p->max = s->max;
	p->underflow = h->underflow;
	p->overflow = h->overflow;
}

void checkpoint_json(struct json *j, const struct results_ckpt *ck)
{
	char at[RFC3339_LEN];

	json_bool(j, "complete", !ck->on);
	if (!ck->on) {
		json_null(j, "checkpoint");
		return;
	}
	json_obj_open(j, "checkpoint");
	json_str(j, "at_wall", rfc3339_format(at, sizeof(at), &ck->at));
	json_double(j, "covered_s", ck->covered_s);
	if (ck->planned_s >= 0)
		json_double(j, "planned_s", ck->planned_s);
	else
		json_null(j, "planned_s");
	json_obj_close(j);
}

/* The run's planned length: its length option's (-D, -T), if set. */
static double planned(const struct test_run *t)
{
	const struct opt *o = run_length_row(t->opts);

	return o && o->dest && *(const long long *)o->dest > 0 ?
		(double)*(const long long *)o->dest : -1;
}

/* A scratch fleet for the checkpoint's records: the run's settings and
 * the records of earlier --iterations, none of this run's. */
static void scratch_begin(struct fleet *s, const struct fleet *live)
{
	int i;

	*s = *live;
	memset(&s->raw, 0, sizeof(s->raw));
	memset(&s->merged, 0, sizeof(s->merged));
	s->raw_merged = NULL;
	s->lost = 0;
	s->partial = true;
	for (i = 0; i < fleet_raw_count(live); i++)
		fleet_add(s, fleet_raw(live, i));
}

bool checkpoint_writes(const struct results_ckpt *ck, const char *path)
{
	if (!path)
		return false;
	return !ck->on || (ck->files && outfile_rewritable(path));
}

enum ckpt_mode { CKPT_OM, CKPT_FILES, CKPT_STATUS };

static void write_one(struct checkpoint *c, int64_t now, enum ckpt_mode mode)
{
	struct test_run *t = c->t;
	struct results *r = &t->res;
	struct fleet scratch, *live = r->fleet;
	const struct fleet_opts *o = live ? live->opts : NULL;

	if (!live)
		return;
	scratch_begin(&scratch, live);
	r->ckpt.on = true;
	r->ckpt.files = mode == CKPT_FILES;
	clock_gettime(CLOCK_REALTIME, &r->ckpt.at);
	r->ckpt.covered_s = (double)(now - c->start_ns) / 1e9;
	r->ckpt.planned_s = c->planned_s;
	/* A status is no step: the live view's steps stay as they were. */
	r->ckpt.owner = mode == CKPT_STATUS ? NULL : c;
	if (mode != CKPT_STATUS) {
		c->step_s = (double)(now - c->step_ns) / 1e9;
		c->step_ns = now;
	}
	r->fleet = &scratch;
	if (t->ops->checkpoint)
		t->ops->checkpoint(t);
	r->fleet = live;
	if (mode == CKPT_STATUS) {
		struct status_block b;

		if (status_open(&b)) {
			status_print(b.f, t->prog, &scratch,
				     (double)(now - c->start_ns) / 1e9);
			status_emit(&b, &c->watch.dropped, t->prog);
		}
	}
	if (o && mode == CKPT_FILES && checkpoint_writes(&r->ckpt, o->junit))
		fleet_write_junit(&scratch, t->prog, o->junit, fleet_elapsed(&scratch), 0);
	/* The live view too is rewritten whole, never streamed. */
	if (o && mode != CKPT_STATUS && o->openmetrics && outfile_rewritable(o->openmetrics))
		fleet_write_openmetrics(&scratch, t->prog, o->openmetrics);
	r->ckpt.on = false;
	/* The final file says the run is complete (rtlat_run_complete 1).
	 * Read by the main thread after checkpoint_end joined this one. */
	if (mode != CKPT_STATUS)
		live->checkpointed = true;
	fleet_free(&scratch);
}

static int64_t next_after(int64_t next, long long every_s, int64_t now)
{
	while (next <= now)
		next += every_s * NSEC_PER_SEC;
	return next;
}

/* The next checkpoint or refresh; with neither, STATUS_NO_WAKE_NS from
 * now (a SIGUSR1 or the end comes first). */
static int64_t next_wake(const struct checkpoint *c, int64_t now)
{
	int64_t wake = now + STATUS_NO_WAKE_NS;

	if (c->files_s && c->next_f < wake)
		wake = c->next_f;
	if (c->om_s && c->next_m < wake)
		wake = c->next_m;
	if (c->starve.next_ns < wake)
		wake = c->starve.next_ns;
	return wake;
}

/* The status watch's tick (status.c): a SIGUSR1, or a checkpoint or
 * refresh due. */
static int64_t ckpt_tick(void *arg, int64_t now, bool usr1)
{
	struct checkpoint *c = arg;
	bool files, om;

	starve_tick(&c->starve, now);
	if (usr1) {
		/* cyclictest's face prints its own block (its display
		 * thread takes it: run_status_take), as cyclictest does. */
		if (c->t->ops->status_signals)
			run_status_note(RUN_STATUS_USR1);
		else
			write_one(c, now, CKPT_STATUS);
		return next_wake(c, now);
	}
	files = c->files_s && now >= c->next_f;
	om = c->om_s && now >= c->next_m;
	if (files || om)
		write_one(c, now, files ? CKPT_FILES : CKPT_OM);
	if (c->files_s)
		c->next_f = next_after(c->next_f, c->files_s, now);
	if (c->om_s)
		c->next_m = next_after(c->next_m, c->om_s, now);
	return next_wake(c, now);
}

int checkpoint_begin(struct test_run *t)
{
	struct test_common *cm = t->common;
	double plan = planned(t);
	struct checkpoint *c;
	int err;

	/* By default a run with a time line (over an hour, or until
	 * stopped: run_record_begin has decided) checkpoints. */
	if (cm->checkpoint_s < 0)
		cm->checkpoint_s = checkpoint_default_s(cm->timeline_s);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->t = t;
	/* Nothing to write without .checkpoint: the thread is SIGUSR1's. */
	c->files_s = t->ops->checkpoint ? cm->checkpoint_s : 0;
	c->planned_s = plan;
	/* The live view: at each step of the time line, else every
	 * CHECKPOINT_OM_S in a run longer than a minute. */
	if (!t->ops->checkpoint)
		c->om_s = 0;
	else if (cm->fleet.openmetrics && cm->timeline_s > 0)
		c->om_s = cm->timeline_s;
	else if (cm->fleet.openmetrics && (plan < 0 || plan > CHECKPOINT_OM_LONG_S))
		c->om_s = CHECKPOINT_OM_S;
	if (c->files_s && c->files_s < c->om_s)
		c->om_s = 0;	/* each checkpoint refreshes it already */
	c->start_ns = c->step_ns = clock_now_ns();
	c->next_f = c->start_ns + c->files_s * NSEC_PER_SEC;
	c->next_m = c->start_ns + c->om_s * NSEC_PER_SEC;
	starve_begin(&c->starve, t, c->start_ns);
	/* Every run has it, checkpoints or not: SIGUSR1's status. */
	err = status_watch_start(&c->watch, ckpt_tick, c, next_wake(c, c->start_ns));
	if (err) {
		/* Said only when checkpoints or the live file were asked: else
		 * the thread is only SIGUSR1's, and what kept it from starting
		 * (a thread or process limit) is said once, by what fails next. */
		if (c->files_s || c->om_s)
			fprintf(stderr, "%s: cannot start the status thread (--checkpoint, SIGUSR1): %s; going on without it\n",
				t->prog, strerror(err));
		free(c);
		return -1;
	}
	t->ckpt = c;
	return 0;
}

bool checkpoint_writes_files(const struct test_run *t)
{
	return t->ckpt && t->ckpt->files_s;
}

long long checkpoint_default_s(long long timeline_s)
{
	return timeline_s > 0 ? CHECKPOINT_DEFAULT_S : 0;
}

void checkpoint_end(struct test_run *t)
{
	struct checkpoint *c = t->ckpt;
	int i;

	if (!c)
		return;
	status_watch_stop(&c->watch);
	for (i = 0; i < c->nprev; i++)
		free(c->prev[i].count);
	free(c->prev);
	free(c);
	t->ckpt = NULL;
}
