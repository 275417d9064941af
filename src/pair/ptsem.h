/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ptsem.h - the hand-off types of rtlat ptsem (ptsematest), one ops table
 * each: mutex (ptsem_mutex.c), condvar (ptsem_condvar.c), sem
 * (ptsem_sem.c), named-sem (ptsem_named.c). transport_ptsem.c picks one
 * by --type. Threads under ptsematest's options; sem, named-sem and mutex
 * also between forked processes (rtlat sync -f sets cfg->fork).
 */
#ifndef RTLAT_PTSEM_H
#define RTLAT_PTSEM_H

#include "pair/pair_types.h"

extern const struct transport_ops ptsem_mutex;
extern const struct transport_ops ptsem_condvar;
extern const struct transport_ops ptsem_sem;
extern const struct transport_ops ptsem_named;

static inline bool ptsem_stopping(const struct pair *p)
{
	return pair_stopping(p->run);
}

#endif
