// SPDX-License-Identifier: GPL-2.0-or-later
/* opts.c - table-driven option parsing, help and range checks. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/opts.h"
#include "util/files.h"
#include "util/version.h"

static void opt_name(char *buf, size_t len, const struct opt *o)
{
	if (o->short_name && o->long_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->long_name);
	else if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
}

void opts_error(const char *prog, const struct opt *o, const char *fmt, ...)
{
	char name[64];
	va_list ap;

	opt_name(name, sizeof(name), o);
	fprintf(stderr, "%s: option %s: ", prog, name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *opts_quote(char *buf, size_t len, const char *s, size_t n)
{
	size_t at = 0, cut = 0, w;
	char one[8];

	if (len < 4)
		return len ? strcpy(buf, "") : buf;
	for (; n && *s; s++, n--) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '\n' || c == '\t')
			snprintf(one, sizeof(one), "\\%c",
				 c == '\n' ? 'n' : c == '\t' ? 't' : '\\');
		else if (c < 0x20 || c == 0x7f)
			snprintf(one, sizeof(one), "\\x%02x", c);
		else
			snprintf(one, sizeof(one), "%c", c);
		w = strlen(one);
		if (at + w >= len) {
			/* Full: "..." where it still fitted. */
			memcpy(buf + cut, "...", 4);
			return buf;
		}
		memcpy(buf + at, one, w);
		at += w;
		if (at + 3 < len)
			cut = at;
	}
	buf[at] = '\0';
	return buf;
}

/* The usable CPUs as "0-3,6", for a message. */
static const char *usable_text(char *buf, size_t len)
{
	int cpus[CPU_LIST_MAX], n = cpus_usable(cpus, CPU_LIST_MAX);

	cpu_list_text(cpus, n, buf, len);
	return buf;
}

static void range_text(char *buf, size_t len, const struct opt *o)
{
	char cpus[256];

	if (o->type == OPT_DURATION)
		snprintf(buf, len, "a duration of %lld to %lld seconds, "
			 "N with an optional suffix s, m, h or d", o->min, o->max);
	else if (o->type == OPT_CPU)
		snprintf(buf, len, "an online CPU number (%s)", usable_text(cpus, sizeof(cpus)));
	else
		snprintf(buf, len, "an integer from %lld to %lld", o->min, o->max);
}

static void choice_list(char *list, size_t len, const char *const *choices)
{
	int i;

	list[0] = '\0';
	for (i = 0; choices[i]; i++) {
		if (i)
			strncat(list, ", ", len - strlen(list) - 1);
		strncat(list, choices[i], len - strlen(list) - 1);
	}
}

static int check_choice(const char *prog, struct opt *o, const char *arg)
{
	char list[256];
	int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(arg, o->choices[i])) {
			*(long long *)o->dest = i;
			return 0;
		}
	}
	choice_list(list, sizeof(list), o->choices);
	opts_error(prog, o, "'%s' is not accepted; accepted: %s", arg, list);
	return -1;
}

/* What one name is, for errors: "test" from the argname "TEST,...". */
static const char *item_name(char *buf, size_t len, const struct opt *o)
{
	size_t i;

	for (i = 0; o->argname && isalpha((unsigned char)o->argname[i]) && i + 1 < len; i++)
		buf[i] = (char)tolower((unsigned char)o->argname[i]);
	buf[i] = '\0';
	return i ? buf : "value";
}

/* "a,b": the bits of the choices named; every name must be one. */
static int check_choices(const char *prog, struct opt *o, const char *arg)
{
	unsigned long long bits = 0;
	const char *p = arg, *end;
	char list[256], noun[32];
	size_t len;
	int i;

	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; o->choices[i]; i++)
			if (strlen(o->choices[i]) == len && !strncmp(o->choices[i], p, len))
				break;
		if (!o->choices[i]) {
			choice_list(list, sizeof(list), o->choices);
			opts_error(prog, o, "'%.*s' is not a %s; accepted: a comma-separated list of %s",
				   (int)len, p, item_name(noun, sizeof(noun), o), list);
			return -1;
		}
		bits |= 1ULL << i;
		if (!end)
			break;
		p = end + 1;
	}
	*(unsigned long long *)o->dest = bits;
	return 0;
}

static int check_cpu_list(const char *prog, struct opt *o, const char *arg)
{
	struct cpu_list *l = o->dest;
	char cpus[256];
	int bad;

	if (!parse_cpu_list(arg, l->cpu, CPU_LIST_MAX, &l->n, &bad))
		return 0;
	if (bad >= 0)
		opts_error(prog, o, "CPU %d is not online; accepted: a list of online CPUs (%s), or all",
			   bad, usable_text(cpus, sizeof(cpus)));
	else if (bad == CPU_LIST_TOO_LONG)
		opts_error(prog, o, "a list of more than %d CPUs; accepted: at most %d, each online (%s), or all",
			   CPU_LIST_MAX, CPU_LIST_MAX, usable_text(cpus, sizeof(cpus)));
	else
		opts_error(prog, o, "'%s' is not accepted; accepted: a list like 3-7 or 1,3 of online CPUs, or all",
			   arg);
	return -1;
}

/*
 * A directory to fill: it exists and a file can be made in it, or it can
 * be made. Both are tried for real (outfile_check creates and removes a
 * file): root passes access() on /proc and /sys, where nothing can be made.
 */
static int check_dir_out(const char *prog, struct opt *o, const char *arg)
{
	char probe[PATH_MAX], why[PATH_MAX + 64];
	struct stat st;
	int bad;

	if (stat(arg, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why), "not a directory");
		bad = 1;
	} else if (stat(arg, &st) == 0) {
		bad = snprintf(probe, sizeof(probe), "%s/probe", arg) >= (int)sizeof(probe) ||
		      outfile_check(probe, why, sizeof(why));
	} else {
		bad = !*arg || outfile_check(arg, why, sizeof(why));
		if (!*arg)
			snprintf(why, sizeof(why), "empty name");
	}
	if (bad) {
		opts_error(prog, o, "cannot use '%s': %s; accepted: a writable directory, or a new one in an existing writable directory",
			   arg, why);
		return -1;
	}
	*(const char **)o->dest = arg;
	return 0;
}

static int check_path_out(const char *prog, struct opt *o, const char *arg)
{
	char why[PATH_MAX + 64];

	if (outfile_check(arg, why, sizeof(why))) {
		opts_error(prog, o, "cannot write '%s': %s; accepted: a file in an existing writable directory, a device, a FIFO or - (stdout)",
			   arg, why);
		return -1;
	}
	*(const char **)o->dest = arg;
	return 0;
}

/* Store one value; print the error line and return -1 if it is bad. */
static int opt_store(const char *prog, struct opt *o, const char *arg)
{
	char range[160];
	long long v;
	int bad;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->dest = true;
		return 0;
	case OPT_STRING:
		*(const char **)o->dest = arg;
		return 0;
	case OPT_PATH_OUT:
		return check_path_out(prog, o, arg);
	case OPT_CHOICE:
		return check_choice(prog, o, arg);
	case OPT_CHOICES:
		return check_choices(prog, o, arg);
	case OPT_CPU_LIST:
		return check_cpu_list(prog, o, arg);
	case OPT_DIR_OUT:
		return check_dir_out(prog, o, arg);
	case OPT_HELP:
	case OPT_VERSION:
		return 0;
	case OPT_REFUSE:
		opts_error(prog, o, "not implemented by rtlat (%s); accepted: without it",
			   o->help);
		return -1;
	case OPT_DURATION:
		bad = parse_duration(arg, &v);
		break;
	default:
		bad = parse_ll(arg, &v);
		break;
	}
	if (!bad && o->type == OPT_CPU)
		bad = v < 0 || !cpu_is_online((int)v);
	else if (!bad)
		bad = v < o->min || v > o->max;
	if (bad) {
		range_text(range, sizeof(range), o);
		opts_error(prog, o, "'%s' is not accepted; accepted: %s", arg, range);
		return -1;
	}
	*(long long *)o->dest = v;
	return 0;
}

int opts_count(const struct opt *t)
{
	int n = 0;

	while (t && (t[n].short_name || t[n].long_name))
		n++;
	return n;
}

struct opt *opts_join(const struct opt *a, const struct opt *b)
{
	int na = opts_count(a), nb = opts_count(b);
	struct opt *t = calloc(na + nb + 1, sizeof(*t));

	if (!t)
		return NULL;
	memcpy(t, a, na * sizeof(*t));
	if (nb)
		memcpy(t + na, b, nb * sizeof(*t));
	return t;
}

void opts_version(FILE *f)
{
	fprintf(f, "rtlat %s\n", RTLAT_VERSION);
}

static void rebase(struct opt *t, int n, void *base)
{
	int i;

	/* Offset 0 is a field too: every row but --help, --version and a
	 * refused option has a dest. */
	for (i = 0; base && i < n; i++)
		if (t[i].type != OPT_HELP && t[i].type != OPT_VERSION &&
		    t[i].type != OPT_REFUSE)
			t[i].dest = (char *)base + (uintptr_t)t[i].dest;
}

struct opt *opts_bind(const struct opt *a, void *abase, const struct opt *b,
		      void *bbase)
{
	struct opt *t = opts_join(a, b);
	int na = opts_count(a);

	if (t) {
		rebase(t, na, abase);
		rebase(t + na, opts_count(b), bbase);
	}
	return t;
}

struct opt *opts_find(const struct opt *tbl, int short_name, const char *long_name)
{
	int i;

	for (i = 0; tbl[i].short_name || tbl[i].long_name; i++) {
		if (short_name && tbl[i].short_name == short_name)
			return (struct opt *)&tbl[i];
		if (long_name && tbl[i].long_name &&
		    !strcmp(tbl[i].long_name, long_name))
			return (struct opt *)&tbl[i];
	}
	return NULL;
}

void opts_defaults(struct opt *tbl)
{
	int i;

	for (i = 0; tbl[i].short_name || tbl[i].long_name; i++) {
		struct opt *o = &tbl[i];

		if (!o->dest)
			continue;
		switch (o->type) {
		case OPT_FLAG:
			*(bool *)o->dest = false;
			break;
		case OPT_STRING: case OPT_PATH_OUT: case OPT_DIR_OUT:
			*(const char **)o->dest = NULL;
			break;
		case OPT_CHOICES:
			*(unsigned long long *)o->dest = 0;
			break;
		case OPT_CPU_LIST:
			((struct cpu_list *)o->dest)->n = 0;
			break;
		case OPT_HELP:
		case OPT_VERSION:
			break;
		default:
			*(long long *)o->dest = o->dflt;
			break;
		}
	}
}

/* The default is shown where it is a value the user could give. */
static bool default_shown(const struct opt *o)
{
	switch (o->type) {
	case OPT_INT: case OPT_DURATION:
		return o->dflt >= o->min && o->dflt <= o->max;
	case OPT_CPU:
		return o->dflt >= 0;
	case OPT_CHOICE:
		return true;
	default:
		return false;
	}
}

/* "(1..100) [default 5]" after an option's help. */
void opts_usage_tail(FILE *f, const struct opt *o)
{
	if (o->type == OPT_INT || o->type == OPT_DURATION)
		fprintf(f, " (%lld..%lld)", o->min, o->max);
	if (!default_shown(o))
		return;
	if (o->type == OPT_CHOICE)
		fprintf(f, " [default %s]", o->choices[o->dflt]);
	else
		fprintf(f, " [default %lld]", o->dflt);
}

void opts_usage(FILE *f, const char *prog, const char *synopsis,
		const struct opt *tbl)
{
	char left[64], arg[40];
	int i;

	fprintf(f, "usage: %s %s\n\n", prog, synopsis ? synopsis : "[OPTIONS]");
	for (i = 0; tbl[i].short_name || tbl[i].long_name; i++) {
		const struct opt *o = &tbl[i];
		int n = 0;

		if (o->arg == OPT_ARG_REQUIRED)
			snprintf(arg, sizeof(arg), " %s", o->argname ? o->argname : "ARG");
		else if (o->arg == OPT_ARG_OPTIONAL)
			snprintf(arg, sizeof(arg), " [%s]", o->argname ? o->argname : "ARG");
		else
			arg[0] = '\0';
		if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c%s", o->short_name,
				     o->long_name ? "" : arg);
		if (o->long_name)
			snprintf(left + n, sizeof(left) - n, "%s--%s%s",
				 n ? ", " : "", o->long_name, arg);
		fprintf(f, "  %-28s %s", left, o->help ? o->help : "");
		opts_usage_tail(f, o);
		fputc('\n', f);
	}
}

/* rt-tests accepts "-a 3" as well as "-a3" for an optional argument. */
static const char *optional_arg(const struct opt *o, int argc, char **argv)
{
	const char *next;
	long long v;

	if (optarg)
		return optarg;
	if (optind >= argc)
		return NULL;
	next = argv[optind];
	/* A CPU list follows as its own word too (-a 3-5,0), as rt-tests. */
	if (o->type == OPT_CPU_LIST && (isdigit((unsigned char)next[0]) ||
					!strcmp(next, "all"))) {
		optind++;
		return next;
	}
	if (parse_ll(next, &v) == 0 && v >= 0) {
		optind++;
		return next;
	}
	return NULL;
}

static int build_getopt(struct opt *tbl, char *shorts, struct option *longs)
{
	int i, s = 0, l = 0;

	shorts[s++] = ':';	/* report missing arguments as ':' */
	for (i = 0; tbl[i].short_name || tbl[i].long_name; i++) {
		const struct opt *o = &tbl[i];

		if (o->short_name) {
			shorts[s++] = (char)o->short_name;
			if (o->arg != OPT_ARG_NONE)
				shorts[s++] = ':';
			if (o->arg == OPT_ARG_OPTIONAL)
				shorts[s++] = ':';
		}
		if (o->long_name) {
			longs[l].name = o->long_name;
			longs[l].has_arg = o->arg == OPT_ARG_NONE ? no_argument :
				o->arg == OPT_ARG_REQUIRED ? required_argument :
				optional_argument;
			longs[l].flag = NULL;
			longs[l].val = 0x1000 + i;
			l++;
		}
	}
	shorts[s] = '\0';
	memset(&longs[l], 0, sizeof(longs[l]));
	return i;
}

static int unknown(const char *prog, int argc, char **argv)
{
	const char *word = optind - 1 < argc ? argv[optind - 1] : "?";

	if (optopt && optopt < 0x1000)
		fprintf(stderr, "%s: unknown option -%c; see %s --help\n",
			prog, optopt, prog);
	else
		fprintf(stderr, "%s: unknown option %s; see %s --help\n",
			prog, word, prog);
	return -1;
}

static struct opt *missing_opt(struct opt *tbl, int argc, char **argv)
{
	const char *w = argv[optind - 1 < argc ? optind - 1 : argc - 1];

	if (w[0] == '-' && w[1] == '-') {
		char name[64];

		snprintf(name, sizeof(name), "%s", w + 2);
		name[strcspn(name, "=")] = '\0';
		return opts_find(tbl, 0, name);
	}
	return opts_find(tbl, optopt, NULL);
}

bool opts_given(const struct opt *tbl, const bool *given, int short_name,
		const char *long_name)
{
	const struct opt *o = opts_find(tbl, short_name, long_name);

	return given && o && given[o - tbl];
}

/* --help and --version: the answer, and the process ends (exit 0:
 * nothing is made yet); any other option returns. */
static void answer(const char *prog, const char *synopsis, const struct opt *tbl,
		   const struct opt *o)
{
	if (o->type == OPT_HELP)
		opts_usage(stdout, prog, synopsis, tbl);
	else if (o->type == OPT_VERSION)
		opts_version(stdout);
	else
		return;
	exit(0);
}

int opts_parse(const char *prog, const char *synopsis, struct opt *tbl,
	       bool *given, int argc, char **argv)
{
	int n = opts_count(tbl), c;
	char *shorts = calloc(3 * n + 2, 1);
	struct option *longs = calloc(n + 1, sizeof(*longs));
	int ret = -1;

	if (!shorts || !longs) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	build_getopt(tbl, shorts, longs);
	/* 0, not 1: glibc then forgets a cluster ("-ab") an earlier parse
	 * stopped in, whose argv may be gone (found by fuzz_opts). */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		struct opt *o;
		const char *arg;

		if (c == '?') {
			unknown(prog, argc, argv);
			goto out;
		}
		if (c == ':') {
			o = missing_opt(tbl, argc, argv);
			if (o)
				opts_error(prog, o, "needs an argument (%s)",
					   o->argname ? o->argname : "ARG");
			else
				fprintf(stderr, "%s: option needs an argument\n", prog);
			goto out;
		}
		o = c >= 0x1000 ? &tbl[c - 0x1000] : opts_find(tbl, c, NULL);
		if (!o) {
			unknown(prog, argc, argv);
			goto out;
		}
		answer(prog, synopsis, tbl, o);
		if (given)
			given[o - tbl] = true;
		arg = o->arg == OPT_ARG_OPTIONAL ? optional_arg(o, argc, argv) : optarg;
		if (o->arg == OPT_ARG_OPTIONAL && !arg && o->type != OPT_REFUSE) {
			if (o->type == OPT_FLAG)
				*(bool *)o->dest = true;
			else if (o->type == OPT_CPU_LIST)	/* all, in order */
				((struct cpu_list *)o->dest)->n = OPT_AUTO;
			else
				*(long long *)o->dest = OPT_AUTO;
			continue;
		}
		if (opt_store(prog, o, arg))
			goto out;
	}
	ret = optind;
out:
	free(shorts);
	free(longs);
	return ret;
}
