// SPDX-License-Identifier: GPL-2.0-or-later
/* fft.c - iterative radix-2 decimation-in-time FFT (see fft.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "core/fft.h"

int fft_plan_init(struct fft_plan *p, size_t n)
{
	size_t k;

	p->cos_t = NULL;
	p->sin_t = NULL;
	p->n = 0;
	if (n < 2 || (n & (n - 1)))
		return -EINVAL;
	p->cos_t = malloc(n / 2 * sizeof(double));
	p->sin_t = malloc(n / 2 * sizeof(double));
	if (!p->cos_t || !p->sin_t) {
		fft_plan_free(p);
		return -ENOMEM;
	}
	for (k = 0; k < n / 2; k++) {
		p->cos_t[k] = cos(2.0 * M_PI * (double)k / (double)n);
		p->sin_t[k] = sin(2.0 * M_PI * (double)k / (double)n);
	}
	p->n = n;
	return 0;
}

void fft_plan_free(struct fft_plan *p)
{
	free(p->cos_t);
	free(p->sin_t);
	p->cos_t = NULL;
	p->sin_t = NULL;
	p->n = 0;
}

static void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Put element i at the bit-reversed index of i. */
static void bit_reverse(size_t n, double *re, double *im)
{
	size_t i, j = 0, bit;

	for (i = 1; i < n; i++) {
		for (bit = n >> 1; j & bit; bit >>= 1)
			j ^= bit;
		j |= bit;
		if (i < j) {
			swap(&re[i], &re[j]);
			swap(&im[i], &im[j]);
		}
	}
}

/* sign -1: forward, +1: inverse (unscaled). */
static void transform(const struct fft_plan *p, double *re, double *im,
		      double sign)
{
	size_t n = p->n, len, half, step, i, k;

	bit_reverse(n, re, im);
	for (len = 2; len <= n; len <<= 1) {
		half = len / 2;
		step = n / len;
		for (i = 0; i < n; i += len) {
			for (k = 0; k < half; k++) {
				double wr = p->cos_t[k * step];
				double wi = sign * p->sin_t[k * step];
				size_t a = i + k, b = a + half;
				double tr = re[b] * wr - im[b] * wi;
				double ti = re[b] * wi + im[b] * wr;

				re[b] = re[a] - tr;
				im[b] = im[a] - ti;
				re[a] += tr;
				im[a] += ti;
			}
		}
	}
}

void fft_forward(const struct fft_plan *p, double *re, double *im)
{
	transform(p, re, im, -1.0);
}

void fft_inverse(const struct fft_plan *p, double *re, double *im)
{
	double scale = 1.0 / (double)p->n;
	size_t i;

	transform(p, re, im, 1.0);
	for (i = 0; i < p->n; i++) {
		re[i] *= scale;
		im[i] *= scale;
	}
}
