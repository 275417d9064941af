/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * load.h - the load beside a measurement (load.c): rtlat qualify's
 * loaded phase, rtlat suite --load and rtlat timer --load. stress-ng's
 * cpu, vm, io, sock and udp stressors across the CPUs and rt-tests'
 * hackbench where it is installed (rteval's mix), and --load-cmd's
 * command (jitterdebugger's -c): each started before the test, in a
 * process group of its own, and stopped after it (SIGTERM, then SIGKILL),
 * reaped, its temp files gone. What each did is kept for index.json (and
 * the timer's JSON): stress-ng's bogo-ops per stressor, the command's exit
 * status and its last lines of output.
 */
#ifndef RTLAT_SYSTEM_LOAD_H
#define RTLAT_SYSTEM_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "util/opts.h"

struct json;

enum load_kind { LOAD_NONE, LOAD_DEFAULT, LOAD_STRESS };

#define LOAD_STRESSORS 8
#define LOAD_TAIL 2048		/* the command's last bytes of output */

/* The options, embedded in the suite's, qualify's and the timer's config. */
struct load_opts {
	long long kind;			/* enum load_kind (--load) */
	const char *cmd;		/* --load-cmd; NULL: none */
	struct cpu_list cpus;		/* --load-cpus; n 0: every CPU */
	long long vm_mb;		/* --load-vm: stress-ng's vm bytes, MiB */
};

/* One phase's load: what ran and what it did. */
struct load_result {
	bool ran;			/* started (stress-ng or the command) */
	char version[32];		/* stress-ng's, from its YAML; "" */
	bool hackbench;			/* hackbench ran beside it */
	int nstress;
	struct {
		char name[16];
		double bogo_ops, per_s;	/* per_s: per second of real time */
	} stress[LOAD_STRESSORS];
	int stress_status;		/* stress-ng's exit status; -1: none */
	double secs;			/* how long the load ran */
	const char *cmd;		/* --load-cmd's; NULL: none */
	int cmd_status;			/* its exit status (128+signal); -1 */
	bool cmd_stopped;		/* still running at the end: stopped */
	char cmd_tail[LOAD_TAIL];	/* its last lines of output */
};

/* A running load (the processes and the private temp dir). */
struct load_run {
	const struct load_opts *o;
	char dir[256];			/* the private temp dir; "": none */
	pid_t stress, hackbench, cmd;	/* process group leaders; 0: none */
	bool cmd_ended;			/* the command ended before the stop */
	int64_t start_ns;
};

/* Is any load asked? */
bool load_asked(const struct load_opts *o);
/* Before anything starts: stress-ng there when a load is asked (else one
 * line naming the package), the memory bounded: 0, or -1 (exit 2). */
int load_check(const char *prog, const struct load_opts *o, struct opt *tbl);
/* Start the load for a test of about secs seconds (0: until stopped): 0,
 * or -1 after a line. */
int load_start(struct load_run *l, const struct load_opts *o,
	       const char *prog, long long secs);
/* Stop, reap and remove everything it made; what it did into r. */
void load_stop(struct load_run *l, struct load_result *r);
/* r as the JSON object "load" (index.json's phase). */
void load_json(struct json *j, const struct load_result *r);

/* The option rows (--load, --load-cmd, --load-cpus, --load-vm). */
extern const char *const load_kind_names[];
#define LOAD_OPT_ENTRIES(f, def)					\
	{ .long_name = "load", .type = OPT_CHOICE, .arg = OPT_ARG_REQUIRED, \
	  .argname = "KIND", .choices = load_kind_names, .dflt = def,	\
	  .dest = &(f)->kind,						\
	  .help = "the load beside the measurement: none; default (stress-ng's cpu, vm, io, sock and udp stressors across the CPUs, and hackbench where rt-tests is installed: rteval's mix); stress-ng (without hackbench)" }, \
	{ .long_name = "load-cmd", .type = OPT_STRING, .arg = OPT_ARG_REQUIRED, \
	  .argname = "CMD", .dest = &(f)->cmd,				\
	  .help = "also run CMD (sh -c) beside the measurement: started before it, stopped after (SIGTERM, then SIGKILL, its process group); its exit status and last lines of output are recorded" }, \
	{ .long_name = "load-cpus", .type = OPT_CPU_LIST, .arg = OPT_ARG_REQUIRED, \
	  .argname = "LIST", .dest = &(f)->cpus,				\
	  .help = "run the load on these CPUs only (default: every CPU, the measuring ones too)" }, \
	{ .long_name = "load-vm", .type = OPT_INT, .arg = OPT_ARG_REQUIRED, \
	  .argname = "MIB", .max = 1 << 20, .dflt = 0,	\
	  .dest = &(f)->vm_mb,						\
	  .help = "memory stress-ng's vm stressors touch in all, MiB (0, the default: an eighth of the available memory, at most 256)" }

#endif
