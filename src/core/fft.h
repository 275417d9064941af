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

#endif
