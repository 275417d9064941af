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
#include "util/opts.h"

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

int cpus_usable(int *cpus, int max)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		int online[CPU_LIST_MAX], k = cpus_online_list(online, CPU_LIST_MAX);

		CPU_ZERO(&set);
		for (c = 0; c < k; c++)
			CPU_SET(online[c], &set);
	}
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set)) {
			if (cpus)
				cpus[n] = c;
			n++;
		}
	return n;
}

int cpu_usable_nth(int i)
{
	int cpus[CPU_LIST_MAX], n = cpus_usable(cpus, CPU_LIST_MAX);

	return n ? cpus[i % n] : 0;
}

int cpu_usable_last(void)
{
	int cpus[CPU_LIST_MAX], n = cpus_usable(cpus, CPU_LIST_MAX);

	return n ? cpus[n - 1] : 0;
}

void cpu_list_text(const int *cpus, int n, char *buf, size_t len)
{
	size_t at = 0;
	int i, j;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n && at < len; i = j + 1) {
		for (j = i; j + 1 < n && cpus[j + 1] == cpus[j] + 1; j++)
			;
		if (j > i)
			at += (size_t)snprintf(buf + at, len - at, "%s%d-%d",
					       i ? "," : "", cpus[i], cpus[j]);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%d",
					       i ? "," : "", cpus[i]);
	}
}

void cpus_online_text(char *buf, size_t len)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "0-%d", cpus_online() - 1);
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
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

/* A CPU number as given: 5000 is "CPU 5000" (not online), and one past
 * an int is no CPU number at all (99999999999999999999 was "CPU 1024"). */
static int parse_cpu(const char **s, int *cpu)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	v = strtol(*s, &end, 10);
	if (errno == ERANGE || v > INT_MAX)
		return -1;
	*cpu = (int)v;
	*s = end;
	return 0;
}

/* "1,3-5" into cpus[0..*n-1]; with online, each must be online (*bad:
 * the first that is not). The grammar of -c and of the kernel's
 * /sys/devices/system/cpu/online alike. */
static int ranges(const char *s, int *cpus, int max, int *n, int *bad, bool online)
{
	int a, b, c;

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
			if (online && !cpu_is_online(c)) {
				*bad = c;
				return -1;
			}
			if (*n >= max) {
				*bad = CPU_LIST_TOO_LONG;
				return -1;
			}
			cpus[(*n)++] = c;
		}
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

int parse_cpu_list(const char *s, int *cpus, int max, int *n, int *bad)
{
	*bad = -2;
	*n = 0;
	if (!strcmp(s, "all")) {
		*n = cpus_usable(cpus, max);
		return *n ? 0 : -1;
	}
	return ranges(s, cpus, max, n, bad, true);
}

int cpu_list_repeat(const int *cpus, int n)
{
	cpu_set_t seen;
	int i;

	CPU_ZERO(&seen);
	for (i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
			continue;
		if (CPU_ISSET(cpus[i], &seen))
			return cpus[i];
		CPU_SET(cpus[i], &seen);
	}
	return -1;
}

int cpus_online_list(int *cpus, int max)
{
	char text[4096];
	int n = 0, bad;

	cpus_online_text(text, sizeof(text));
	ranges(text, cpus, max, &n, &bad, false);
	return n;
}
