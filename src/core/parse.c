// SPDX-License-Identifier: GPL-2.0-or-later
/* parse.c - strict parsers of option values (see opts.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/opts.h"

int parse_ll(const char *s, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_duration(const char *s, long long *seconds)
{
	char *end;
	long long v, mul = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0': case 's': case 'S': mul = 1; break;
	case 'm': case 'M': mul = 60; break;
	case 'h': case 'H': mul = 3600; break;
	case 'd': case 'D': mul = 86400; break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	if (v > LLONG_MAX / mul)
		return -1;
	*seconds = v * mul;
	return 0;
}

int cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

bool cpu_is_online(int cpu)
{
	char path[64], c = '0';
	FILE *f;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "r");
	if (!f) {
		/* cpu0 often has no "online" file; fall back to the count. */
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		return access(path, F_OK) == 0;
	}
	if (fread(&c, 1, 1, f) != 1)
		c = '0';
	fclose(f);
	return c == '1';
}

static int parse_cpu(const char **s, int *cpu)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**s))
		return -1;
	v = strtol(*s, &end, 10);
	if (v > CPU_SETSIZE)
		v = CPU_SETSIZE;
	*cpu = (int)v;
	*s = end;
	return 0;
}

int parse_cpu_list(const char *s, int *cpus, int max, int *n, int *bad)
{
	int a, b, c;

	*bad = -2;
	*n = 0;
	if (!strcmp(s, "all")) {
		for (c = 0; c < cpus_online() && *n < max; c++)
			if (cpu_is_online(c))
				cpus[(*n)++] = c;
		return *n ? 0 : -1;
	}
	for (;;) {
		if (parse_cpu(&s, &a))
			return -1;
		b = a;
		if (*s == '-') {
			s++;
			if (parse_cpu(&s, &b) || b < a)
				return -1;
		}
		for (c = a; c <= b; c++) {
			if (!cpu_is_online(c)) {
				*bad = c;
				return -1;
			}
			if (*n >= max)
				return -1;
			cpus[(*n)++] = c;
		}
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}
