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
#include <stdio.h>

#define OPTS_EXIT_USAGE 2

enum opt_type {
	OPT_FLAG,	/* bool *: set true */
	OPT_INT,	/* long long *: integer in [min, max] */
	OPT_DURATION,	/* long long * seconds: N[s|m|h|d], in [min, max] */
	OPT_CPU,	/* long long *: an online CPU number */
	OPT_STRING,	/* const char **: any text */
	OPT_PATH_OUT,	/* const char **: file to write; its directory must exist */
	OPT_CHOICE,	/* long long *: index into choices[] */
	OPT_HELP,	/* print the help and exit 0 */
};

enum opt_arg {
	OPT_ARG_NONE,
	OPT_ARG_REQUIRED,
	/* Value attached (-a3, --affinity=3) or the next word if it is a
	 * number (-a 3), as rt-tests accepts; otherwise dflt is stored. */
	OPT_ARG_OPTIONAL,
};

struct opt {
	int short_name;			/* 0: long only */
	const char *long_name;		/* NULL: short only */
	enum opt_type type;
	enum opt_arg arg;
	const char *argname;		/* "USEC" in the help */
	long long min, max;		/* accepted range (INT, DURATION) */
	long long dflt;			/* stored for OPTIONAL without value */
	void *dest;
	const char *help;
	const char *const *choices;	/* OPT_CHOICE: NULL-terminated */
	bool given;			/* set by opts_parse */
};

#define OPT_END { 0, NULL, OPT_FLAG, OPT_ARG_NONE, NULL, 0, 0, 0, NULL, NULL, NULL, false }

/*
 * Parse argv against tbl (terminated by OPT_END). Returns the index of the
 * first operand, or -1 after printing the error line. Unknown options and
 * missing arguments are errors. OPT_HELP prints opts_usage and exits 0.
 */
int opts_parse(const char *prog, const char *synopsis, struct opt *tbl,
	       int argc, char **argv);
void opts_usage(FILE *f, const char *prog, const char *synopsis,
		const struct opt *tbl);
/* The entry for a short or long name, NULL if absent. */
struct opt *opts_find(struct opt *tbl, int short_name, const char *long_name);
/* Concatenate tables (each OPT_END-terminated) into a new malloc'd table. */
struct opt *opts_join(const struct opt *a, const struct opt *b);
/* Print the one error line for an option (used by later checks too). */
void opts_error(const char *prog, const struct opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Strict parsers, usable on their own; 0 on success, -1 on error. */
int parse_ll(const char *s, long long *out);
/* "90", "90s", "5m", "2h", "1d" -> seconds; rejects "10x", "-5", "". */
int parse_duration(const char *s, long long *seconds);
int cpus_online(void);
bool cpu_is_online(int cpu);

#endif
