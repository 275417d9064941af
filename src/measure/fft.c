// SPDX-License-Identifier: GPL-2.0-or-later
/* fft.c - iterative radix-2 decimation-in-time FFT (see fft.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "measure/fft.h"

/* The cosine and sine tables (count entries each): 0 or -ENOMEM, with
 * both NULL. */
static void tables_free(double **c, double **s)
{
	free(*c);
	free(*s);
	*c = NULL;
	*s = NULL;
}

static int tables_alloc(double **c, double **s, size_t count)
{
	*c = malloc(count * sizeof(double));
	*s = malloc(count * sizeof(double));
	if (*c && *s)
		return 0;
	tables_free(c, s);
	return -ENOMEM;
}

int fft_plan_init(struct fft_plan *p, size_t n)
{
	size_t k;

	p->cos_t = p->sin_t = NULL;
	p->n = 0;
	if (n < 2 || (n & (n - 1)))
		return -EINVAL;
	if (tables_alloc(&p->cos_t, &p->sin_t, n / 2))
		return -ENOMEM;
	for (k = 0; k < n / 2; k++) {
		p->cos_t[k] = cos(2.0 * M_PI * (double)k / (double)n);
		p->sin_t[k] = sin(2.0 * M_PI * (double)k / (double)n);
	}
	p->n = n;
	return 0;
}

void fft_plan_free(struct fft_plan *p)
{
	tables_free(&p->cos_t, &p->sin_t);
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

void fft_walk_free(struct fft_walk *w)
{
	tables_free(&w->cos_t, &w->sin_t);
	w->n = 0;
}

int fft_walk_init(struct fft_walk *w, size_t n)
{
	size_t half, k;

	w->cos_t = w->sin_t = NULL;
	w->n = 0;
	if (n < 2 || (n & (n - 1)))
		return -EINVAL;
	if (tables_alloc(&w->cos_t, &w->sin_t, n - 1))
		return -ENOMEM;
	for (half = 1; half < n; half <<= 1)
		for (k = 0; k < half; k++) {
			w->cos_t[half - 1 + k] = cos(M_PI * (double)k / (double)half);
			w->sin_t[half - 1 + k] = sin(M_PI * (double)k / (double)half);
		}
	w->n = n;
	w->len = n;
	w->i = 0;
	w->k = 0;
	w->inverse = 0;
	return 0;
}

/* Butterflies k .. k+m-1 of the group at i, stage span len. */
static void walk_run(const struct fft_walk *w, double *re, double *im, size_t m)
{
	size_t half = w->len / 2, k;
	const double *wc = w->cos_t + half - 1, *wsn = w->sin_t + half - 1;

	for (k = w->k; k < w->k + m; k++) {
		double wr = wc[k], ws = wsn[k];
		size_t a = w->i + k, b = a + half;

		if (!w->inverse) {
			/* DIF: a' = a + b, b' = (a - b) e^(-2 pi i k/len). */
			double dr = re[a] - re[b], di = im[a] - im[b];

			re[a] += re[b];
			im[a] += im[b];
			re[b] = dr * wr + di * ws;
			im[b] = di * wr - dr * ws;
		} else {
			/* DIT: t = b e^(+2 pi i k/len); a' = (a + t) / 2,
			 * b' = (a - t) / 2. */
			double tr = re[b] * wr - im[b] * ws;
			double ti = re[b] * ws + im[b] * wr;

			re[b] = 0.5 * (re[a] - tr);
			im[b] = 0.5 * (im[a] - ti);
			re[a] = 0.5 * (re[a] + tr);
			im[a] = 0.5 * (im[a] + ti);
		}
	}
}

void fft_walk_steps(struct fft_walk *w, double *re, double *im,
		    unsigned long long steps)
{
	while (steps) {
		size_t half = w->len / 2, m = half - w->k;

		if (m > steps)
			m = (size_t)steps;
		walk_run(w, re, im, m);
		steps -= m;
		w->k += m;
		if (w->k < half)
			continue;
		w->k = 0;
		w->i += w->len;
		if (w->i < w->n)
			continue;
		w->i = 0;
		/* Next stage: forward n .. 2, then inverse 2 .. n. */
		if (!w->inverse && w->len > 2) {
			w->len >>= 1;
		} else if (!w->inverse) {
			w->inverse = 1;
		} else if (w->len < w->n) {
			w->len <<= 1;
		} else {
			w->inverse = 0;
		}
	}
}
