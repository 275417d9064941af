/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tsc.h - the CPU's cycle counter as a clock (--clock tsc): the x86
 * time-stamp counter, or on arm64 the generic timer's virtual counter
 * (CNTVCT_EL0). Whether it can be used (x86: an invariant TSC, constant
 * rate, runs in every C-state; arm64: CNTFRQ_EL0 says its frequency),
 * reading it, its frequency calibrated against CLOCK_MONOTONIC at start
 * (never read from /proc/cpuinfo; on arm64 checked against CNTFRQ_EL0),
 * and cycles <-> ns.
 *
 * On other architectures no counter is trusted; everything compiles,
 * tsc_available() is then false and nothing else may be called.
 */
#ifndef RTLAT_TSC_H
#define RTLAT_TSC_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TSC_ARCH 1
#define TSC_NEEDS "tsc needs an x86 CPU with an invariant TSC (CPUID 0x80000007 EDX bit 8), and this one has none"
#elif defined(__aarch64__)
#define TSC_ARCH 1
#define TSC_NEEDS "tsc needs the arm64 generic timer (CNTVCT_EL0) with its frequency in CNTFRQ_EL0, and this one reports none"
#else
#define TSC_ARCH 0
#define TSC_NEEDS "tsc needs a cycle counter rtlat trusts (x86 invariant TSC, arm64 CNTVCT_EL0), and this CPU has none"
#endif

/* A calibration further than this from CNTFRQ_EL0 (arm64) is refused. */
#define TSC_NOMINAL_PPM		10000

/* Calibration: the median of this many windows of this length. */
#define TSC_CAL_WINDOWS		5
#define TSC_CAL_WINDOW_MS	20
/* A frequency outside this range is a broken calibration (Hz). */
#define TSC_HZ_MIN		1e6
#define TSC_HZ_MAX		1e11

struct tsc_cal {
	double hz;		/* cycles per second: median of the windows */
	double spread_ppm;	/* (max - min) / median of the windows */
	double ns_per_cycle;	/* 1e9 / hz */
	int windows;		/* how many windows the median is of */
};

/* x86 and CPUID 0x80000007 EDX bit 8 (invariant TSC); arm64 and a
 * non-zero CNTFRQ_EL0. */
bool tsc_available(void);

/*
 * The counter, as a signed value so gaps are a plain subtraction (63 bits
 * last a century at 3 GHz). No fence: a caller that needs the read
 * ordered against memory operations adds one.
 */
static inline int64_t tsc_now(void)
{
#if defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return (int64_t)v;
#elif TSC_ARCH
	return (int64_t)__rdtsc();
#else
	return 0;
#endif
}

/* Measure the frequency (TSC_CAL_WINDOWS sleeps of TSC_CAL_WINDOW_MS).
 * 0, or -1 if unavailable, the median is out of range or (arm64) further
 * than TSC_NOMINAL_PPM from CNTFRQ_EL0. */
int tsc_calibrate(struct tsc_cal *cal);

/* Pure parts, unit-tested. */
/* One window: cycles counted over ns nanoseconds, in Hz (0 if ns <= 0). */
double tsc_window_hz(int64_t cycles, int64_t ns);
/* The median and spread of n window frequencies into cal; -1 if n < 1
 * or the median is outside [TSC_HZ_MIN, TSC_HZ_MAX]. hz is reordered. */
int tsc_cal_from(struct tsc_cal *cal, double *hz, int n);
/* Rounded to the nearest ns / cycle; negative inputs stay negative. */
int64_t tsc_cycles_to_ns(const struct tsc_cal *cal, int64_t cycles);
int64_t tsc_ns_to_cycles(const struct tsc_cal *cal, int64_t ns);
/* Whether a calibration agrees with a nominal frequency within ppm. */
bool tsc_near_nominal(const struct tsc_cal *cal, double nominal_hz, double ppm);

#endif
