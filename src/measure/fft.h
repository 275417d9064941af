/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fft.h - in-place radix-2 complex FFT of double-precision data, the work
 * the request test's load processes and rtlat response --work fft do.
 * Split real/imaginary arrays.
 */
#ifndef RTLAT_FFT_H
#define RTLAT_FFT_H

#include <stddef.h>

struct fft_plan {
	size_t n;		/* points, a power of two >= 2 */
	double *cos_t;		/* cos(2 pi k / n), k < n/2 */
	double *sin_t;		/* sin(2 pi k / n), k < n/2 */
};

/* Twiddle tables for n points. Returns 0 or -EINVAL / -ENOMEM. */
int fft_plan_init(struct fft_plan *p, size_t n);
void fft_plan_free(struct fft_plan *p);
/* Forward: X[k] = sum x[j] e^(-2 pi i jk/n). Inverse: e^(+...), scaled
 * by 1/n, so inverse(forward(x)) == x. */
void fft_forward(const struct fft_plan *p, double *re, double *im);
void fft_inverse(const struct fft_plan *p, double *re, double *im);

/*
 * The same transforms a few butterflies at a time, for work that must be
 * cut into short units whatever n is (rtlat response --work fft on arrays
 * larger than the last-level cache): forward by decimation in frequency
 * (natural order in, bit-reversed out), then inverse by decimation in time
 * (bit-reversed in, natural order out, halved at each stage), again and
 * again. No permutation pass: every step is one butterfly, and each
 * forward-inverse cycle (n/2 * log2(n) * 2 steps) gives the input back.
 * Each stage reads its own twiddles in order (n - 1 of them in all), so
 * every stage streams through memory alike.
 */
struct fft_walk {
	size_t n;
	double *cos_t, *sin_t;	/* stage of span len: from len/2 - 1 */
	size_t len;		/* the stage's butterfly span */
	size_t i, k;		/* the next butterfly: group start, offset */
	int inverse;
};

/* Returns 0 or -EINVAL / -ENOMEM. */
int fft_walk_init(struct fft_walk *w, size_t n);
void fft_walk_free(struct fft_walk *w);
void fft_walk_steps(struct fft_walk *w, double *re, double *im,
		    unsigned long long steps);

#endif
