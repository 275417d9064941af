/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * msr.h - the CPUs' count of System Management Interrupts (MSR_SMI_COUNT,
 * 0x34, Intel) through the msr driver's /dev/cpu/N/msr: the firmware's
 * time away that no tracer sees, as hwlatdetect and turbostat read it.
 */
#ifndef RTLAT_MSR_H
#define RTLAT_MSR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSR_SMI_COUNT 0x34

/* CPU cpu's SMI count (the register's low 32 bits): 0, or -errno
 * (ENOENT: no /dev/cpu/N/msr; EIO: the CPU has no such register). */
int smi_read(int cpu, uint64_t *count);
/*
 * Whether the count can be read on cpu; where /dev/cpu/N/msr is missing
 * and load is set, "modprobe msr" first (root). false with the reason,
 * one clause, in why.
 */
bool smi_available(int cpu, bool load, char *why, size_t len);

/* The counts of the online CPUs at one moment (the first SMI_MAX_CPUS). */
#define SMI_MAX_CPUS 1024
struct smi_snap {
	int n;			/* CPUs read; 0: none could be (why) */
	int cpu[SMI_MAX_CPUS];
	uint64_t count[SMI_MAX_CPUS];
	char why[160];
};

/* Read every online CPU's count (smi_available's load on the first):
 * 0, or -1 with s->n 0 and the reason in s->why. Each CPU's read is an
 * interrupt on that CPU (the driver's rdmsr runs there). */
int smi_snap_take(struct smi_snap *s, bool load);
/* b's count of cpu minus a's, or -1 where either lacks it. */
long long smi_delta(const struct smi_snap *a, const struct smi_snap *b, int cpu);

/* cpu's SMIs since start was taken (read now), or -1 where either
 * lacks it. Small on the stack: for any thread. */
long long smi_since(const struct smi_snap *start, int cpu);

struct json;
/* "smi": per CPU of start its count then and now ({"0": {"start": N,
 * "end": N}}), or null and "smi_unavailable": why. */
void smi_json(struct json *j, const struct smi_snap *start);

#endif
