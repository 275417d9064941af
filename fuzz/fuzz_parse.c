// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_parse.c - libFuzzer harness for the strict value parsers: number,
 * duration and CPU list. Each accepted value is checked against what the
 * text says, computed here a second, simpler way.
 */
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/opts.h"

/* The decimal value of s[0..n-1], or -1 if it does not fit. */
static long long decimal(const char *s, size_t n)
{
	long long v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v > (LLONG_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static void check_duration(const char *s)
{
	static const char units[] = "sSmMhHdD";
	static const long long mul[] = { 1, 1, 60, 60, 3600, 3600, 86400, 86400 };
	size_t n = strspn(s, "0123456789");
	long long secs, v;
	const char *u;
	int ok = parse_duration(s, &secs) == 0;

	v = n ? decimal(s, n) : -1;
	u = s[n] ? strchr(units, s[n]) : NULL;
	if (v < 0 || (s[n] && (!u || s[n + 1])))
		ok ? abort() : (void)0;
	else if (!u)
		ok && secs == v ? (void)0 : abort();
	else if (v > LLONG_MAX / mul[u - units])
		ok ? abort() : (void)0;
	else
		ok && secs == v * mul[u - units] ? (void)0 : abort();
}

/* Accepted exactly when s is [+-]digits within long long, with that value. */
static void check_ll(const char *s)
{
	const char *d = s + (*s == '+' || *s == '-');
	size_t n = strspn(d, "0123456789");
	__int128 want = 0;
	long long v;
	bool fits = true;
	size_t i;
	int ok = parse_ll(s, &v) == 0;

	for (i = 0; i < n && fits; i++) {
		want = want * 10 + (d[i] - '0');
		fits = want <= (__int128)LLONG_MAX + 1;
	}
	if (*s == '-')
		want = -want;
	fits = fits && want >= LLONG_MIN && want <= LLONG_MAX;
	if (!n || d[n] || !fits)
		ok ? abort() : (void)0;
	else if (!ok || v != (long long)want)
		abort();
}

/* cpu appears twice in cpus[0..n-1], counted the simple way. */
static bool repeated(const int *cpus, int n, int cpu)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += cpus[i] == cpu;
	return k > 1;
}

static void check_cpu_list(const char *s)
{
	int cpus[CPU_LIST_MAX], n = -1, bad = 0, i;

	if (parse_cpu_list(s, cpus, CPU_LIST_MAX, &n, &bad)) {
		if ((bad < -2 && bad != CPU_LIST_TOO_LONG) ||
		    (bad >= 0 && cpu_is_online(bad)))
			abort();
		/* Too long: every place filled first. */
		if (bad == CPU_LIST_TOO_LONG && n != CPU_LIST_MAX)
			abort();
		return;
	}
	/* A repeat found is one listed twice. */
	i = cpu_list_repeat(cpus, n);
	if (i >= 0 && !repeated(cpus, n, i))
		abort();
	if (n < 1 || n > CPU_LIST_MAX)
		abort();
	for (i = 0; i < n; i++)
		if (!cpu_is_online(cpus[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	check_ll(s);
	check_duration(s);
	check_cpu_list(s);
	free(s);
	return 0;
}
