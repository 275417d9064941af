/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h - options declared once in a table that drives parsing, --help
 * and range checks.
 *
 * Every error prints one line "PROG: option -x/--long: what; accepted: ..."
 * on stderr; the caller then exits with status 2 (OPTS_EXIT_USAGE).
 */
#ifndef RTLAT_OPTS_H
#define RTLAT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define OPTS_EXIT_USAGE 2
/* An optional argument left out. */
#define OPT_AUTO (-1)

enum opt_type {
	OPT_FLAG,	/* bool *: set true */
	OPT_INT,	/* long long *: integer in [min, max] */
	OPT_DURATION,	/* long long * seconds: N[s|m|h|d], in [min, max] */
	OPT_CPU,	/* long long *: an online CPU number */
	OPT_STRING,	/* const char **: any text */
	OPT_PATH_OUT,	/* const char **: file to write; its directory must exist */
	OPT_CHOICE,	/* long long *: index into choices[] */
	OPT_CHOICES,	/* unsigned long long *: bit i set per choices[i] named,
			 * comma-separated */
	OPT_CPU_LIST,	/* struct cpu_list *: online CPUs, "3-7" or "1,3" */
	OPT_DIR_OUT,	/* const char **: directory to create or fill; its
			 * parent must exist */
	OPT_HELP,	/* print the help and exit 0 */
	OPT_VERSION,	/* print rtlat's version (as rtlat --version), exit 0 */
	OPT_REFUSE,	/* a peer's option rtlat does not implement: given, it
			 * is bad input naming it (help says why), never
			 * silently ignored */
};

/* As many as a cpu_set_t holds (glibc's CPU_SETSIZE): a list of CPUs
 * is pinned with one, so no machine rtlat can pin on is cut short. */
#define CPU_LIST_MAX 1024

struct cpu_list {
	int n;
	int cpu[CPU_LIST_MAX];
};

enum opt_arg {
	OPT_ARG_NONE,
	OPT_ARG_REQUIRED,
	/* Value attached (-a3, --affinity=3) or the next word if it is a
	 * number (-a 3), as rt-tests accepts; otherwise OPT_AUTO is stored
	 * ("one per CPU", "pair i on CPU i"). */
	OPT_ARG_OPTIONAL,
};

/*
 * A row of a table, written with designated initializers only:
 * { .short_name = 'i', .long_name = "interval", .type = OPT_INT, ...,
 * .min = 1, .max = 1000000, .dflt = 1000, ... }. The long name comes
 * first and the short one second, so that a row written by position (where
 * a minimum and a default can swap unseen) does not compile: a character
 * does not make a name, nor a string a number (tests/test_layout.py
 * shows it).
 */
struct opt {
	const char *long_name;		/* NULL: short only */
	int short_name;			/* 0: long only */
	enum opt_type type;
	enum opt_arg arg;
	const char *argname;		/* "USEC" in the help */
	long long min, max;		/* accepted range (INT, DURATION) */
	/* The default: stored by opts_defaults() before parsing, shown by
	 * --help where it is an accepted value. */
	long long dflt;
	void *dest;
	const char *help;
	const char *const *choices;	/* OPT_CHOICE(S): NULL-terminated */
	/* Its key in the JSON "settings" (opts_settings); NULL: not there.
	 * What was given is the run's, not the table's (opts_parse). */
	const char *key;
};

/*
 * A row's dest in a table: the field's offset in the config a run
 * allocates (a test's cfg_size, rtlat suite's run), which opts_bind
 * turns into its address (every row but OPT_HELP's and OPT_VERSION's has one): the one way
 * a table stores. OPT_AT_STRUCT names a struct inside the config the
 * same way, for macros that take its address (TEST_COMMON_OPTS).
 */
#define OPT_AT(type, field) ((void *)offsetof(type, field))
#define OPT_AT_STRUCT(type, field)						\
	((__typeof__(((type *)0)->field) *)offsetof(type, field))

/* The rows most tests have, with their JSON settings keys. */
#define OPT_MAX_DURATION_S (3650LL * 86400)	/* -D: ten years */
#define OPT_ROW_HELP								\
	{ .short_name = 'h', .long_name = "help", .type = OPT_HELP, .arg = OPT_ARG_NONE, \
	  .help = "print this help" }
/* Every test's (TEST_COMMON_OPTS) and rtlat suite's, under every
 * compatible name too: rt-tests' tools answer --version with their
 * version and exit 0 (2.x: the usage, whose first line it is). */
#define OPT_ROW_VERSION								\
	{ .long_name = "version", .type = OPT_VERSION, .arg = OPT_ARG_NONE, \
	  .help = "print rtlat's version and exit" }
#define OPT_ROW_DURATION(cfg, field, def, text)				\
	{ .short_name = 'D', .long_name = "duration", .type = OPT_DURATION, \
	  .arg = OPT_ARG_REQUIRED, .argname = "TIME", .max = OPT_MAX_DURATION_S, \
	  .dflt = def, .dest = OPT_AT(cfg, field), .help = text, .key = "duration_s" }
#define OPT_ROW_LOOPS(cfg, field, hi, def, text)				\
	{ .short_name = 'l', .long_name = "loops", .type = OPT_INT,	\
	  .arg = OPT_ARG_REQUIRED, .argname = "LOOPS", .max = hi, .dflt = def, \
	  .dest = OPT_AT(cfg, field), .help = text, .key = "loops" }
#define OPT_ROW_PRIO(cfg, field, lo, hi, def, text)			\
	{ .short_name = 'p', .long_name = "prio", .type = OPT_INT,	\
	  .arg = OPT_ARG_REQUIRED, .argname = "PRIO", .min = lo, .max = hi, \
	  .dflt = def, .dest = OPT_AT(cfg, field), .help = text, .key = "priority" }
#define OPT_ROW_QUIET(cfg, field, text)					\
	{ .short_name = 'q', .long_name = "quiet", .type = OPT_FLAG,	\
	  .arg = OPT_ARG_NONE, .dest = OPT_AT(cfg, field), .help = text }

#define OPT_END { .long_name = NULL, .short_name = 0 }

/*
 * Parse argv against tbl (terminated by OPT_END). Returns the index of the
 * first operand, or -1 after printing the error line. Unknown options and
 * missing arguments are errors. OPT_HELP prints opts_usage and exits 0.
 */
int opts_parse(const char *prog, const char *synopsis, struct opt *tbl,
	       bool *given, int argc, char **argv);
/* given (opts_count(tbl) entries, or NULL): which rows the command line
 * set. opts_given: that mark of a short or long name. */
int opts_count(const struct opt *tbl);
bool opts_given(const struct opt *tbl, const bool *given, int short_name,
		const char *long_name);
/* The line rtlat --version and every --version print. */
void opts_version(FILE *f);
/* Store every entry's starting value: init, false or NULL. */
void opts_defaults(struct opt *tbl);
void opts_usage(FILE *f, const char *prog, const char *synopsis,
		const struct opt *tbl);
/* " (1..100) [default 5]": an option's range and default (help, man). */
void opts_usage_tail(FILE *f, const struct opt *o);
/* The entry for a short or long name, NULL if absent (as strchr, not
 * const when tbl is: the caller knows which it has). */
struct opt *opts_find(const struct opt *tbl, int short_name, const char *long_name);
/* Concatenate tables (each OPT_END-terminated; b may be NULL) into a new
 * malloc'd table. */
struct opt *opts_join(const struct opt *a, const struct opt *b);
/*
 * opts_join, with a's rows bound by offset (OPT_AT) made to point into
 * abase (a run's config), b's into bbase. A NULL base leaves them
 * offsets: a table to read (--help, the man page), not to parse into.
 */
struct opt *opts_bind(const struct opt *a, void *abase, const struct opt *b,
		      void *bbase);
/* Print the one error line for an option (used by later checks too). */
void opts_error(const char *prog, const struct opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The user's text (at most n bytes of s) as it may be shown in that one
 * line: a backslash, newline, tab or other control byte escaped (\\, \n,
 * \t, \xNN); cut with "..." when buf is full. Returns buf. */
const char *opts_quote(char *buf, size_t len, const char *s, size_t n);

/* Strict parsers, usable on their own; 0 on success, -1 on error. */
int parse_ll(const char *s, long long *out);
/* "90", "90s", "5m", "2h", "1d" -> seconds; rejects "10x", "-5", "". */
int parse_duration(const char *s, long long *seconds);
/* "1,3-5" or "all" (every usable CPU) into cpus[0..*n-1]; -1 with *bad
 * the offline CPU, -2 for a syntax error or CPU_LIST_TOO_LONG for more
 * than max CPUs. A CPU may be listed twice: cpu_list_repeat() finds it
 * where that matters. */
#define CPU_LIST_TOO_LONG (-3)
int parse_cpu_list(const char *s, int *cpus, int max, int *n, int *bad);
/* The first CPU cpus[0..n-1] lists twice, or -1. */
int cpu_list_repeat(const int *cpus, int n);
int cpus_online(void);
bool cpu_is_online(int cpu);
/* The CPUs this process may run on, in order: the online ones, or what
 * taskset or a cpuset cgroup left it. Numbers can have holes (nosmt, a
 * CPU taken offline), so never count 0..n-1. Returns how many (<= max);
 * cpus NULL: only counts. */
int cpus_usable(int *cpus, int max);
/* The i-th usable CPU, i taken modulo their count (threads in turn). */
int cpu_usable_nth(int i);
/* The last usable CPU (where a single measured thread goes). */
int cpu_usable_last(void);
/* The kernel's list of online CPUs ("0-3,6"), whatever this process may
 * use. */
void cpus_online_text(char *buf, size_t len);
/* The online CPUs, whatever this thread may use (it may be pinned
 * already): how many, at most max. */
int cpus_online_list(int *cpus, int max);
/* cpus[0..n-1] (ascending) as "0-3,6" into buf. */
void cpu_list_text(const int *cpus, int n, char *buf, size_t len);

#endif
