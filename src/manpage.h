/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manpage.h - "rtlat --man NAME" and "rtlat --completion" (manpage.c, completion.c). */
#ifndef RTLAT_MANPAGE_H
#define RTLAT_MANPAGE_H

#include <stdio.h>

/* argv[1] is --man or --completion: write the page or script to stdout;
 * the exit status. */
int manpage_main(int argc, char **argv);
/* The SAMPLES FILE section (manpage_samples.c). */
struct opt;
void man_samples_section(FILE *f, const struct opt *tbl);

/*
 * The OUTPUT and JSON KEYS of rtlat deadline and its cyclicdeadline face
 * (manpage.c's table, which is at the 600-line limit: their text here).
 */
#define DL_MAN_OUTPUT \
	"rtlat timer's lines (\"== Sampling period\", RTT, RTH, an RTD line per second " \
	"unless -q, RTS), then a line per thread: \"deadline: thread N: J jobs, M deadline " \
	"misses, O runtime overruns\". A job is a thread's work between its wake-up and " \
	"its sched_yield(); its latency is the wake-up against its period's start (the " \
	"first wake-up starts the grid, as cyclicdeadline; an earlier one starts it anew). " \
	"A miss is a job that ended after its deadline, an overrun one whose runtime ran " \
	"out (SIGXCPU of SCHED_FLAG_DL_OVERRUN).\n" \
	"A refusal of the kernel's admission control is one line on standard error with " \
	"the fix, and the exit status 1: EBUSY (more bandwidth than sched_rt_runtime_us " \
	"allows), EPERM (a thread pinned by -c inside a wider root domain: an exclusive " \
	"cpuset partition makes a CPU its own; or no CAP_SYS_NICE), EINVAL, ENOSYS."
#define DL_MAN_JSON \
	"rtlat timer's layout (\"settings\" with runtime_us, deadline_us, threads, " \
	"work_us and method sched_deadline; \"latency\", \"overruns\" (periods skipped), " \
	"\"msw\", \"summary\", \"seconds\", \"histograms\", \"cpus\"), each CPU's object and the top level with \"deadline\": runtime_ns, " \
	"deadline_ns, period_ns, jobs, misses, overruns, and \"refused\" (the line said) " \
	"for a thread the kernel did not admit."
#define CD_MAN_OUTPUT \
	"cyclicdeadline 2.40's lines: \"interval: R:D\" and \"  Tested at Nus of Rus\" per " \
	"thread, \"deadline thread TID\", \"thread[TID] runtime=Rus deadline=Dus\", " \
	"\"main thread PID\", then one \"T: N (tid) I:.. C:.. Min: Act: Avg: Max:\" line per " \
	"thread in us (redrawn in place on a terminal, once at the end otherwise and with " \
	"-q). No cpuset is made: -a CPUSET pins, which needs each CPU to be a root domain."
#define CD_MAN_JSON \
	"rt-tests cyclicdeadline 2.40's layout (its rt_write_json; \"rt_test_version:\" 2.40): " \
	"\"num_threads\", \"resolution_in_ns\" (0: microseconds) and \"thread\", one object " \
	"per thread under its number (\"0\", \"1\", ...) with cycles, min and max (us, integers) " \
	"and avg (us, two decimals), over every sample measured, and rtlat's own " \
	"min_ns, avg_ns and max_ns beside them; rtlat deadline writes rtlat timer's layout " \
	"with the deadline counts."
/* The bash completion script (completion.c). */
void completion_write(FILE *f);

#endif
