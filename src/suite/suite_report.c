// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suite_report.c - --report of rtlat suite and rtlat qualify: rtlat-report
 * found before anything runs, and run on the results directory at the end.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite/suite_run.h"

/*
 * rtlat-report: $RTLAT_REPORT, then the PATH, then beside the binary (an
 * install outside the PATH: make install PREFIX=/opt/rtlat), then a
 * checkout's test venv there (.venv/bin, where make check installs it).
 */
bool suite_find_report(struct suite_run *s)
{
	char *report_tool = s->report_tool;
	const char *env = getenv("RTLAT_REPORT"), *path = getenv("PATH");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env)
		return snprintf(report_tool, sizeof(s->report_tool), "%s", env) > 0 &&
		       access(report_tool, X_OK) == 0;
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(report_tool, sizeof(s->report_tool), "%.*s/rtlat-report",
			 (int)len, path);
		if (len && access(report_tool, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(report_tool, sizeof(s->report_tool), "%.*s/rtlat-report",
		 (int)(sizeof(s->report_tool) - 16), exe);
	if (access(report_tool, X_OK) == 0)
		return true;
	snprintf(report_tool, sizeof(s->report_tool), "%.*s/.venv/bin/rtlat-report",
		 (int)(sizeof(s->report_tool) - 24), exe);
	return access(report_tool, X_OK) == 0;
}

/* rtlat-report DIR: it prints "report: DIR/report.html" itself. */
int suite_write_report(const struct suite_run *s, const char *dir)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl(s->report_tool, "rtlat-report", dir, (char *)NULL);
		fprintf(stderr, "%s: --report: cannot run %s: %s\n",
			s->prog, s->report_tool, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "%s: --report: rtlat-report failed; the results are in %s\n",
		s->prog, dir);
	return -1;
}
