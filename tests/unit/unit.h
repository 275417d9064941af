/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - a minimal unit-test harness. Each test file registers its
 * tests with UNIT_TEST(); the runner prints "N passed, N failed".
 */
#ifndef RTLAT_UNIT_H
#define RTLAT_UNIT_H

#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
	struct unit_test *next;
};

extern int unit_failures;
void unit_register(struct unit_test *t);
/* A fixture file whole, NUL-terminated; CHECKs it is not empty
 * (test_explain61.c). */
size_t unit_slurp(const char *name, char *buf, size_t len);

#define UNIT_TEST(name)							\
	static void name(void);						\
	static struct unit_test unit_##name = { #name, name, NULL };	\
	__attribute__((constructor)) static void reg_##name(void)	\
	{ unit_register(&unit_##name); }				\
	static void name(void)

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		unit_failures++;					\
	}								\
} while (0)

#define CHECK_EQ_LL(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n",	\
			__FILE__, __LINE__, #a, _a, _b);		\
		unit_failures++;					\
	}								\
} while (0)

#define CHECK_NEAR(a, b, eps) do {					\
	double _a = (a), _b = (b);					\
	if (!(_a - _b <= (eps) && _b - _a <= (eps))) {			\
		fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g\n",	\
			__FILE__, __LINE__, #a, _a, _b);		\
		unit_failures++;					\
	}								\
} while (0)

#endif
