// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context_json.c - where a run happened, as every result's
 * "rtlat": {"context": ...} (context.h): kind, engine, cgroup limits with
 * the throttling over the run, capabilities, hypervisor, steal time; and
 * the one line said when a --baseline ran in another place.
 */
#include <stdio.h>
#include <string.h>
#include "system/context.h"
#include "util/json.h"
#include "util/jsonread.h"

static void json_ll_or_null(struct json *j, const char *key, long long v)
{
	if (v >= 0)
		json_int(j, key, v);
	else
		json_null(j, key);
}

static void json_counters(struct json *j, const char *key, const struct ctx_snap *s)
{
	json_obj_open(j, key);
	json_ll_or_null(j, "nr_periods", s->nr_periods);
	json_ll_or_null(j, "nr_throttled", s->nr_throttled);
	json_ll_or_null(j, "throttled_us", s->throttled_us);
	json_obj_close(j);
}

static void json_quota(struct json *j, const struct context *c, const struct ctx_snap *before)
{
	const struct ctx_snap *a = &c->snap;

	if (c->quota_us < 0) {
		json_null(j, "quota");
		return;
	}
	json_obj_open(j, "quota");
	json_int(j, "quota_us", c->quota_us);
	json_int(j, "period_us", c->period_us);
	json_fixed(j, "cpus", (double)c->quota_us / (double)c->period_us, 2);
	json_str(j, "cgroup", c->quota_dir);
	if (before)
		json_counters(j, "throttling_before", before);
	json_counters(j, "throttling_after", a);
	if (before && a->nr_throttled >= 0 && before->nr_throttled >= 0) {
		json_int(j, "nr_throttled_during", a->nr_throttled - before->nr_throttled);
		json_ll_or_null(j, "throttled_us_during", a->throttled_us >= 0 && before->throttled_us >= 0 ?
				a->throttled_us - before->throttled_us : -1);
	}
	json_obj_close(j);
}

static void json_caps(struct json *j, const struct context *c)
{
	static const struct { int bit; const char *name; } caps[] = {
		{ CTX_CAP_SYS_NICE, "CAP_SYS_NICE" }, { CTX_CAP_IPC_LOCK, "CAP_IPC_LOCK" },
		{ CTX_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	size_t i;

	json_obj_open(j, "capabilities");
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (c->caps_known)
			json_bool(j, caps[i].name, ctx_has_cap(c, caps[i].bit));
		else
			json_null(j, caps[i].name);
	if (c->rtprio == -1)
		json_str(j, "rlimit_rtprio", "unlimited");
	else
		json_ll_or_null(j, "rlimit_rtprio", c->rtprio);
	if (c->memlock == -1)
		json_str(j, "rlimit_memlock", "unlimited");
	else
		json_ll_or_null(j, "rlimit_memlock", c->memlock);
	json_bool(j, "cpu_dma_latency", c->dma_latency);
	json_bool(j, "tracefs", c->tracefs);
	json_obj_close(j);
}

static void json_str_or_null(struct json *j, const char *key, const char *s)
{
	if (s && s[0])
		json_str(j, key, s);
	else
		json_null(j, key);
}

static void json_steal(struct json *j, const struct context *c, const struct ctx_snap *before)
{
	double boot = ctx_steal_pct(&c->snap, NULL);
	double during = before ? ctx_steal_pct(before, &c->snap) : -1;

	json_obj_open(j, "steal");
	if (boot >= 0)
		json_fixed(j, "since_boot_pct", boot, 3);
	else
		json_null(j, "since_boot_pct");
	if (during >= 0)
		json_fixed(j, "during_run_pct", during, 3);
	else
		json_null(j, "during_run_pct");
	if (before)
		json_ll_or_null(j, "ticks_before", before->steal);
	json_ll_or_null(j, "ticks_after", c->snap.steal);
	json_obj_close(j);
}

void context_json(struct json *j, const char *key, const struct ctx_snap *before)
{
	struct context c;

	context_read(&c);
	if (before && before->total <= 0 && before->nr_periods <= 0)
		before = NULL;
	json_obj_open(j, key);
	json_str(j, "kind", c.kind);
	json_str_or_null(j, "engine", c.engine);
	json_str_or_null(j, "evidence", c.evidence);
	if (c.cgroup)
		json_int(j, "cgroup", c.cgroup);
	else
		json_null(j, "cgroup");
	json_str_or_null(j, "cpuset", c.cpuset);
	json_str_or_null(j, "cpuset_exclusive", c.exclusive);
	json_quota(j, &c, before);
	json_ll_or_null(j, "rt_runtime_us", c.rt_runtime_us);
	json_caps(j, &c);
	json_str_or_null(j, "hypervisor", c.hypervisor);
	json_str_or_null(j, "hypervisor_evidence", c.hv_evidence);
	json_str_or_null(j, "clocksource", c.clocksource);
	json_str_or_null(j, "idle_driver", c.idle_driver);
	json_bool(j, "idle_poll", c.idle_poll);
	json_steal(j, &c, before);
	json_obj_close(j);
}

static const char *str_of(const struct jr_value *v, const char *key)
{
	v = jr_get(v, key);
	return v && v->type == JR_STRING ? v->s : "";
}

/* "container (podman)", "vm (KVM)", "bare-metal". */
static void place(char *buf, size_t len, const char *kind, const char *engine,
		  const char *hv)
{
	bool ctr = !strncmp(kind, "container", 9), vm = strstr(kind, "vm") != NULL;

	snprintf(buf, len, "%s%s%s%s%s%s", kind, ctr || vm ? " (" : "",
		 ctr ? engine : "", ctr && vm ? ", " : "", vm ? hv : "",
		 ctr || vm ? ")" : "");
}

void context_baseline_warn(const char *prog, const char *text, size_t len)
{
	const struct jr_value *ctx;
	struct context c;
	struct jr_doc d;
	char was[160], now[160];

	if (jr_parse_only(&d, text, len, "rtlat", 3)) {
		jr_free(&d);
		return;
	}
	ctx = jr_get(jr_get(d.root, "rtlat"), "context");
	if (ctx && ctx->type == JR_OBJECT && str_of(ctx, "kind")[0]) {
		context_read(&c);
		place(was, sizeof(was), str_of(ctx, "kind"), str_of(ctx, "engine"),
		      str_of(ctx, "hypervisor"));
		place(now, sizeof(now), c.kind, c.engine, c.hypervisor);
		if (strcmp(was, now) != 0)
			fprintf(stderr, "%s: warning: --baseline ran in another place: %s, this run %s (the comparison mixes what each adds)\n",
				prog, was, now);
	}
	jr_free(&d);
}
