// SPDX-License-Identifier: GPL-2.0-or-later
/* sysinfo.c - the system snapshot recorded with every result. */
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "util/json.h"
#include "util/opts.h"
#include "system/sysinfo.h"

const char *sysinfo_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

long long sysinfo_read_ll(const char *path)
{
	char buf[32];
	long long v;

	if (parse_ll(sysinfo_read_line(path, buf, sizeof(buf)), &v))
		return -1;
	return v;
}

int sysinfo_realtime(void)
{
	char buf[16];
	struct utsname u;

	if (!strcmp(sysinfo_read_line("/sys/kernel/realtime", buf, sizeof(buf)), "1"))
		return 1;
	return uname(&u) == 0 && strstr(u.version, "PREEMPT_RT") ? 1 : 0;
}

const char *sysinfo_preempt_model(void)
{
	static char model[64];
	struct utsname u;
	char buf[128], *open;

	if (uname(&u))
		return "unknown";
	if (strstr(u.version, "PREEMPT_RT"))
		return "PREEMPT_RT";
	if (strstr(u.version, "PREEMPT_DYNAMIC")) {
		/* "none voluntary (full) lazy": the mode in force is in ( ). */
		sysinfo_read_line("/sys/kernel/debug/sched/preempt", buf, sizeof(buf));
		open = strchr(buf, '(');
		if (open && strchr(open, ')')) {
			*strchr(open, ')') = '\0';
			snprintf(model, sizeof(model), "PREEMPT_DYNAMIC (%s)", open + 1);
			return model;
		}
		return "PREEMPT_DYNAMIC";
	}
	if (strstr(u.version, "PREEMPT"))
		return "PREEMPT";
	return "none or voluntary";
}

void sysinfo_json_compat(struct json *j)
{
	struct utsname u;

	memset(&u, 0, sizeof(u));
	uname(&u);
	json_obj_open(j, "sysinfo");
	json_str(j, "sysname", u.sysname);
	json_str(j, "nodename", u.nodename);
	json_str(j, "release", u.release);
	json_str(j, "version", u.version);
	json_str(j, "machine", u.machine);
	json_int(j, "realtime", sysinfo_realtime());
	json_obj_close(j);
}

static void governors(struct json *j)
{
	char buf[64];
	glob_t g;
	size_t i;

	json_arr_open_inline(j, "governors");
	if (glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor",
		 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			json_str(j, NULL, sysinfo_read_line(g.gl_pathv[i], buf, sizeof(buf)));
		globfree(&g);
	}
	json_arr_close(j);
}

void sysinfo_json(struct json *j)
{
	char buf[4096];
	struct utsname u;
	long long v;

	memset(&u, 0, sizeof(u));
	uname(&u);
	json_obj_open(j, "system");
	json_str(j, "kernel", u.release);
	json_str(j, "kernel_version", u.version);
	json_str(j, "machine", u.machine);
	json_str(j, "preempt_model", sysinfo_preempt_model());
	sysinfo_read_line("/sys/kernel/realtime", buf, sizeof(buf));
	if (buf[0])
		json_str(j, "sys_kernel_realtime", buf);
	else
		json_null(j, "sys_kernel_realtime");
	json_str(j, "clocksource", sysinfo_read_line(
		"/sys/devices/system/clocksource/clocksource0/current_clocksource",
		buf, sizeof(buf)));
	json_str(j, "cmdline", sysinfo_read_line("/proc/cmdline", buf, sizeof(buf)));
	json_str(j, "isolated_cpus", sysinfo_read_line("/sys/devices/system/cpu/isolated",
					       buf, sizeof(buf)));
	json_int(j, "cpus_online", cpus_online());
	governors(j);
	if (parse_ll(sysinfo_read_line("/proc/sys/kernel/sched_rt_runtime_us", buf,
			       sizeof(buf)), &v) == 0)
		json_int(j, "sched_rt_runtime_us", v);
	if (parse_ll(sysinfo_read_line("/proc/sys/kernel/sched_rt_period_us", buf,
			       sizeof(buf)), &v) == 0)
		json_int(j, "sched_rt_period_us", v);
	json_obj_close(j);
}
