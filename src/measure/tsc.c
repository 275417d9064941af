// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsc.c - the time-stamp counter: availability, calibration against
 * CLOCK_MONOTONIC, cycles <-> ns.
 */
#include <math.h>
#include "measure/clock.h"
#include "measure/tsc.h"

#if TSC_ARCH && !defined(__aarch64__)
#include <cpuid.h>
#endif

/* CPUID 0x80000007 EDX: the TSC runs at a constant rate in every
 * P-, C- and T-state (Intel SDM vol. 3 17.17.1, AMD APM vol. 3 E.4.18). */
#define CPUID_INVARIANT_TSC	(1U << 8)

#if defined(__aarch64__)
/* Linux lets user space read both registers (CNTKCTL_EL1.EL0VCTEN). */
static uint64_t cntfrq(void)
{
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
}
#endif

bool tsc_available(void)
{
#if defined(__aarch64__)
	return cntfrq() != 0;
#elif TSC_ARCH
	unsigned int a, b, c, d;

	/* __get_cpuid checks the highest extended leaf first. */
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & CPUID_INVARIANT_TSC;
#else
	return false;
#endif
}

double tsc_window_hz(int64_t cycles, int64_t ns)
{
	return ns > 0 ? (double)cycles * 1e9 / (double)ns : 0;
}

static void sort_doubles(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int tsc_cal_from(struct tsc_cal *cal, double *hz, int n)
{
	double med;

	if (n < 1)
		return -1;
	sort_doubles(hz, n);
	med = n % 2 ? hz[n / 2] : (hz[n / 2 - 1] + hz[n / 2]) / 2;
	if (!(med >= TSC_HZ_MIN && med <= TSC_HZ_MAX))
		return -1;
	cal->hz = med;
	cal->spread_ppm = (hz[n - 1] - hz[0]) / med * 1e6;
	cal->ns_per_cycle = 1e9 / med;
	cal->windows = n;
	return 0;
}

int64_t tsc_cycles_to_ns(const struct tsc_cal *cal, int64_t cycles)
{
	return (int64_t)llround((double)cycles * cal->ns_per_cycle);
}

int64_t tsc_ns_to_cycles(const struct tsc_cal *cal, int64_t ns)
{
	return (int64_t)llround((double)ns * cal->hz / 1e9);
}

bool tsc_near_nominal(const struct tsc_cal *cal, double nominal_hz, double ppm)
{
	return nominal_hz > 0 && fabs(cal->hz - nominal_hz) / nominal_hz * 1e6 <= ppm;
}

#if TSC_ARCH
/*
 * A TSC value and the CLOCK_MONOTONIC time read between two TSC reads:
 * of a few tries, the one with the tightest bracket (no interrupt in it),
 * the TSC at its middle.
 */
static void tsc_pair(int64_t *tsc, int64_t *ns)
{
	int64_t a, b, t, best = INT64_MAX;
	int i;

	for (i = 0; i < 8; i++) {
		a = tsc_now();
		t = clock_now_ns();
		b = tsc_now();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
}

int tsc_calibrate(struct tsc_cal *cal)
{
	double hz[TSC_CAL_WINDOWS];
	int64_t c0, c1, t0, t1;
	int i;

	if (!tsc_available())
		return -1;
	for (i = 0; i < TSC_CAL_WINDOWS; i++) {
		tsc_pair(&c0, &t0);
		/* Sleeping is fine: an invariant TSC counts on. */
		clock_sleep_until(t0 + TSC_CAL_WINDOW_MS * NSEC_PER_MSEC);
		tsc_pair(&c1, &t1);
		hz[i] = tsc_window_hz(c1 - c0, t1 - t0);
	}
	if (tsc_cal_from(cal, hz, TSC_CAL_WINDOWS))
		return -1;
#if defined(__aarch64__)
	/* A counter that does not run at the rate it states is not trusted. */
	if (!tsc_near_nominal(cal, (double)cntfrq(), TSC_NOMINAL_PPM))
		return -1;
#endif
	return 0;
}
#else
int tsc_calibrate(struct tsc_cal *cal)
{
	(void)cal;
	return -1;
}
#endif
