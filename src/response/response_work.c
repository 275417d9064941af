// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * response_work.c - the four blocks of work and their calibration.
 * add: an integer recurrence the compiler cannot fold; copy: memcpy of
 * 64 KiB chunks walking a source a quarter larger than the last-level
 * cache into one chunk, so the reads miss; whetstone: a floating-point mix of our own (arithmetic, branches,
 * calls into libm, array updates); fft: the shared radix-2 FFT (its walk) on a
 * transform whose data and twiddles are larger than the last-level cache
 * (the design's load processes: 65536 points, to cause cache misses),
 * walked WORK_FFT_UNIT butterflies per unit so a block stays ~--block ms.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "measure/clock.h"
#include "system/sysinfo.h"
#include "response/response_types.h"
#include "response/response_work.h"

#define COPY_CHUNK	(64 * 1024)
#define COPY_MIN	(16ULL << 20)

const char *const work_names[] = { "add", "copy", "whetstone", "fft", NULL };

/* Results land here so no work is dead code. */
volatile uint64_t work_sink;
volatile double work_fsink;

/*
 * The largest data or unified cache of CPU 0 in sysfs ("1024K"): where
 * the C library has no _SC_LEVEL*_CACHE_SIZE (musl) or answers 0 (glibc
 * on arm64).
 */
static long sysfs_llc_bytes(void)
{
	char path[80], buf[32], *end;
	long best = 0, v;
	int i;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!*sysinfo_read_line(path, buf, sizeof(buf)))
			break;
		if (!strcmp(buf, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		v = strtol(sysinfo_read_line(path, buf, sizeof(buf)), &end, 10);
		v *= *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
		if (v > best)
			best = v;
	}
	return best;
}

/* The kernel's figure (sysfs), else the C library's. */
uint64_t work_llc_bytes(void)
{
	long v = sysfs_llc_bytes();

#ifdef _SC_LEVEL3_CACHE_SIZE
	if (v <= 0)
		v = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (v <= 0)
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return v > 0 ? (uint64_t)v : 0;
}

uint64_t work_fft_default_points(uint64_t llc)
{
	uint64_t n = WORK_FFT_MIN_POINTS;

	while (n < WORK_FFT_MAX_POINTS && n * WORK_FFT_BYTES_PER_POINT <= llc)
		n *= 2;
	return n;
}

static int copy_init(struct work *w)
{
	w->copy_bytes = w->llc_bytes + w->llc_bytes / 4;
	if (w->copy_bytes < COPY_MIN)
		w->copy_bytes = COPY_MIN;
	w->copy_bytes -= w->copy_bytes % COPY_CHUNK;
	w->copy_src = malloc(w->copy_bytes);
	w->copy_dst = malloc(COPY_CHUNK);
	if (!w->copy_src || !w->copy_dst)
		return -ENOMEM;
	/* Written, so every page is real (not the shared zero page). */
	memset(w->copy_src, 0x5a, w->copy_bytes);
	memset(w->copy_dst, 0, COPY_CHUNK);
	return 0;
}

/* Everything allocated and written here, before measuring. */
static int fft_init(struct work *w, uint64_t points)
{
	uint64_t i;

	w->fft_points = points ? points : work_fft_default_points(w->llc_bytes);
	w->fft_re = malloc(w->fft_points * sizeof(double));
	w->fft_im = malloc(w->fft_points * sizeof(double));
	if (!w->fft_re || !w->fft_im || fft_walk_init(&w->walk, w->fft_points))
		return -ENOMEM;
	for (i = 0; i < w->fft_points; i++) {
		w->fft_re[i] = sin(0.1 * (double)i) + 0.5 * cos(0.37 * (double)i);
		w->fft_im[i] = 0;
	}
	return 0;
}

int work_init(struct work *w, enum work_kind k, uint64_t fft_points)
{
	memset(w, 0, sizeof(*w));
	w->kind = k;
	w->llc_bytes = work_llc_bytes();
	if (k == WORK_COPY)
		return copy_init(w);
	if (k == WORK_FFT)
		return fft_init(w, fft_points);
	return 0;
}

void work_fini(struct work *w)
{
	free(w->copy_src);
	free(w->copy_dst);
	free(w->fft_re);
	free(w->fft_im);
	fft_walk_free(&w->walk);
	memset(w, 0, sizeof(*w));
}

static void work_add(uint64_t units)
{
	uint64_t i, acc = work_sink | 1;

	for (i = 0; i < units * 1000; i++) {
		acc += i ^ (acc >> 3);
		/* The value must exist each round: no closed form. */
		__asm__ volatile("" : "+r"(acc));
	}
	work_sink = acc;
}

static void work_copy(struct work *w, uint64_t units)
{
	uint64_t i;

	for (i = 0; i < units; i++) {
		memcpy(w->copy_dst, w->copy_src + w->copy_off, COPY_CHUNK);
		w->copy_off = (w->copy_off + COPY_CHUNK) % w->copy_bytes;
	}
	work_sink += (unsigned char)w->copy_dst[units % COPY_CHUNK];
}

/* One unit: 100 rounds of a mix of adds, multiplies, divides, a branch,
 * libm calls and a small array, values kept bounded. */
static void work_whetstone(uint64_t units)
{
	double e[4] = { 1.0, -1.0, -1.0, -1.0 }, x = 0.5, y = 0.75, t = 0.499975;
	uint64_t u;
	int i;

	for (u = 0; u < units; u++)
		for (i = 0; i < 100; i++) {
			e[0] = (e[0] + e[1] + e[2] - e[3]) * t;
			e[1] = (e[0] + e[1] - e[2] + e[3]) * t;
			e[2] = (e[0] - e[1] + e[2] + e[3]) * t;
			e[3] = (-e[0] + e[1] + e[2] + e[3]) / 2.0;
			x = t * atan(2.0 * sin(x) * cos(x) / (cos(x + y) + cos(x - y) - 1.0));
			y = sqrt(exp(log(fabs(y) + 1.0) / 1.5)) - 0.25;
			if (i & 1)
				x += e[i & 3] * 1e-9;
		}
	work_fsink = x + y + e[0] + e[3];
}

static void work_fft(struct work *w, uint64_t units)
{
	fft_walk_steps(&w->walk, w->fft_re, w->fft_im, units * WORK_FFT_UNIT);
	work_fsink = w->fft_re[1];
}

void work_run(struct work *w, uint64_t units)
{
	switch (w->kind) {
	case WORK_ADD:
		work_add(units);
		break;
	case WORK_COPY:
		work_copy(w, units);
		break;
	case WORK_WHETSTONE:
		work_whetstone(units);
		break;
	case WORK_FFT:
		work_fft(w, units);
		break;
	}
}

uint64_t work_units_for(uint64_t units_probe, int64_t ns_probe, int64_t target_ns)
{
	double u;

	if (ns_probe <= 0 || !units_probe)
		return 1;
	u = (double)units_probe * (double)target_ns / (double)ns_probe;
	return u < 1.0 ? 1 : (uint64_t)llround(u);
}

static int64_t time_units(struct work *w, uint64_t units)
{
	int64_t t0 = clock_now_ns();

	work_run(w, units);
	return clock_now_ns() - t0;
}

/* Double the probe until it takes a quarter of the target, then take
 * the least disturbed of three runs of it. */
uint64_t work_calibrate(struct work *w, int64_t target_ns, double *ns_per_unit)
{
	uint64_t units = 1;
	int64_t ns, best;
	int i;

	while ((ns = time_units(w, units)) < target_ns / 4 && units < (1ULL << 40))
		units *= 2;
	best = ns;
	for (i = 0; i < 3; i++) {
		ns = time_units(w, units);
		if (ns < best)
			best = ns;
	}
	*ns_per_unit = (double)best / (double)units;
	return work_units_for(units, best, target_ns);
}
