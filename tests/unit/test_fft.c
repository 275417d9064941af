// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fft.c - the load processes' FFT: known transforms, round trip. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "measure/fft.h"
#include "unit.h"

UNIT_TEST(fft_rejects_bad_sizes)
{
	struct fft_plan p;

	CHECK_EQ_LL(fft_plan_init(&p, 0), -EINVAL);
	CHECK_EQ_LL(fft_plan_init(&p, 1), -EINVAL);
	CHECK_EQ_LL(fft_plan_init(&p, 12), -EINVAL);
	CHECK_EQ_LL(fft_plan_init(&p, 16), 0);
	fft_plan_free(&p);
}

/* A unit impulse transforms to all ones. */
UNIT_TEST(fft_impulse_is_flat)
{
	double re[8] = { 1, 0, 0, 0, 0, 0, 0, 0 }, im[8] = { 0 };
	struct fft_plan p;
	int i;

	CHECK_EQ_LL(fft_plan_init(&p, 8), 0);
	fft_forward(&p, re, im);
	for (i = 0; i < 8; i++) {
		CHECK_NEAR(re[i], 1.0, 1e-12);
		CHECK_NEAR(im[i], 0.0, 1e-12);
	}
	fft_plan_free(&p);
}

/* cos(2 pi 3 j / n) has n/2 at bins 3 and n-3, zero elsewhere; the
 * forward sign convention shows in a sine: -n/2 i at bin 5. */
UNIT_TEST(fft_known_tones)
{
	enum { N = 64 };
	double re[N], im[N];
	struct fft_plan p;
	int j;

	CHECK_EQ_LL(fft_plan_init(&p, N), 0);
	for (j = 0; j < N; j++) {
		re[j] = cos(2 * M_PI * 3 * j / N) + sin(2 * M_PI * 5 * j / N);
		im[j] = 0;
	}
	fft_forward(&p, re, im);
	for (j = 0; j < N; j++) {
		double er = (j == 3 || j == N - 3) ? N / 2.0 : 0.0;
		double ei = j == 5 ? -N / 2.0 : j == N - 5 ? N / 2.0 : 0.0;

		CHECK_NEAR(re[j], er, 1e-9);
		CHECK_NEAR(im[j], ei, 1e-9);
	}
	fft_plan_free(&p);
}

/* The load's size: 65536 points forward and back give the input again. */
UNIT_TEST(fft_round_trip_65536)
{
	enum { N = 65536 };
	double *re = malloc(N * sizeof(double)), *im = malloc(N * sizeof(double));
	double *x = malloc(N * sizeof(double)), worst = 0;
	struct fft_plan p;
	int j;

	CHECK(re && im && x);
	if (!re || !im || !x)
		goto out;
	CHECK_EQ_LL(fft_plan_init(&p, N), 0);
	srand(7);
	for (j = 0; j < N; j++) {
		x[j] = re[j] = (double)rand() / RAND_MAX - 0.5;
		im[j] = 0;
	}
	fft_forward(&p, re, im);
	CHECK(fabs(re[1] - x[1]) > 1e-6);	/* it did transform */
	fft_inverse(&p, re, im);
	for (j = 0; j < N; j++) {
		if (fabs(re[j] - x[j]) > worst)
			worst = fabs(re[j] - x[j]);
		if (fabs(im[j]) > worst)
			worst = fabs(im[j]);
	}
	CHECK(worst < 1e-9);
	fft_plan_free(&p);
out:
	free(re);
	free(im);
	free(x);
}
