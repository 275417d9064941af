// SPDX-License-Identifier: GPL-2.0-or-later
/* msr.c - MSR_SMI_COUNT per CPU through /dev/cpu/N/msr (msr.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/msr.h"
#include "util/json.h"
#include "util/opts.h"

int smi_read(int cpu, uint64_t *count)
{
	char path[64];
	uint64_t v = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The driver reads the register named by the offset on that CPU. */
	n = pread(fd, &v, sizeof(v), MSR_SMI_COUNT);
	close(fd);
	if (n < 0)
		return -errno;
	if (n != sizeof(v))
		return -EIO;
	*count = v & 0xffffffffu;	/* the count is bits 31:0 */
	return 0;
}

/* modprobe msr, quietly: whether it ran and succeeded. */
static bool load_msr(void)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return false;
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("modprobe", "modprobe", "msr", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

bool smi_available(int cpu, bool load, char *why, size_t len)
{
	uint64_t v;
	int e = smi_read(cpu, &v);

	if (e == -ENOENT && load && geteuid() == 0 && load_msr())
		e = smi_read(cpu, &v);
	if (!e)
		return true;
	if (e == -ENOENT)
		snprintf(why, len, "no /dev/cpu/%d/msr (modprobe msr, as root; CONFIG_X86_MSR)", cpu);
	else if (e == -EIO)
		snprintf(why, len, "CPU %d has no MSR_SMI_COUNT (Intel only; not in most guests)", cpu);
	else
		snprintf(why, len, "cannot read /dev/cpu/%d/msr: %s", cpu, strerror(-e));
	return false;
}

int smi_snap_take(struct smi_snap *s, bool load)
{
	int all[SMI_MAX_CPUS], n = cpus_online_list(all, SMI_MAX_CPUS), i;

	s->n = 0;
	s->why[0] = '\0';
	if (n <= 0 || !smi_available(all[0], load, s->why, sizeof(s->why)))
		return -1;
	for (i = 0; i < n; i++)
		if (!smi_read(all[i], &s->count[s->n]))
			s->cpu[s->n++] = all[i];
	return 0;
}

static int snap_index(const struct smi_snap *s, int cpu)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->cpu[i] == cpu)
			return i;
	return -1;
}

long long smi_delta(const struct smi_snap *a, const struct smi_snap *b, int cpu)
{
	int i = snap_index(a, cpu), k = snap_index(b, cpu);

	if (i < 0 || k < 0)
		return -1;
	/* 32 bits that wrap: the difference modulo 2^32 */
	return (long long)((b->count[k] - a->count[i]) & 0xffffffffu);
}

long long smi_since(const struct smi_snap *start, int cpu)
{
	int i = snap_index(start, cpu);
	uint64_t now = 0;

	if (i < 0 || smi_read(cpu, &now))
		return -1;
	return (long long)((now - start->count[i]) & 0xffffffffu);
}

void smi_json(struct json *j, const struct smi_snap *start)
{
	char key[16];
	long long d;
	int i;

	if (!start->n) {
		json_null(j, "smi");
		json_str(j, "smi_unavailable", start->why[0] ? start->why : "not read");
		return;
	}
	json_obj_open(j, "smi");
	for (i = 0; i < start->n; i++) {
		snprintf(key, sizeof(key), "%d", start->cpu[i]);
		json_obj_open(j, key);
		json_uint(j, "start", start->count[i]);
		d = smi_since(start, start->cpu[i]);
		if (d >= 0)
			json_uint(j, "end", (start->count[i] + (uint64_t)d) & 0xffffffffu);
		else
			json_null(j, "end");
		json_obj_close(j);
	}
	json_obj_close(j);
}
