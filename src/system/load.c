// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * load.c - the load beside a measurement (load.h): stress-ng (and
 * hackbench) as rteval runs them, and --load-cmd. Not the measuring path:
 * the suite's main thread starts it before a test's child and stops it
 * after the child is reaped; rtlat timer's setup starts it before its
 * samplers and its report stops it before the JSON is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "util/json.h"
#include "system/load.h"

const char *const load_kind_names[] = { "none", "default", "stress-ng", NULL };

/* How long a stopped load has to end (stress-ng writes its metrics on
 * SIGTERM) before its process group is killed. */
#define LOAD_STOP_MS 10000

bool load_asked(const struct load_opts *o)
{
	return o->kind != LOAD_NONE || o->cmd;
}

static bool in_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s/%s", (int)len, path, name);
		if (len && access(file, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

int load_check(const char *prog, const struct load_opts *o, struct opt *tbl)
{
	if (o->kind != LOAD_NONE && !in_path("stress-ng")) {
		opts_error(prog, opts_find(tbl, 0, "load"),
			   "'%s' needs stress-ng, which is not installed (Debian/Ubuntu: apt-get install stress-ng; Buildroot: BR2_PACKAGE_STRESS_NG; Yocto: stress-ng); accepted: none, or install stress-ng",
			   load_kind_names[o->kind]);
		return -1;
	}
	if (o->cmd && !*o->cmd) {
		opts_error(prog, opts_find(tbl, 0, "load-cmd"),
			   "empty; accepted: a shell command");
		return -1;
	}
	return 0;
}

/* The load's CPUs: --load-cpus, or every online CPU. */
static int load_cpus(const struct load_opts *o)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->cpus.n > 0)
		return o->cpus.n;
	return n > 0 ? (int)n : 1;
}

/* stress-ng's vm bytes in all: --load-vm, or an eighth of MemAvailable
 * (at least 16 MiB, at most 256 MiB), so a small board survives it. */
static long long vm_bytes(const struct load_opts *o)
{
	long long kb = 0, mib;
	char line[128];
	FILE *f;

	if (o->vm_mb > 0)
		return o->vm_mb << 20;
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	mib = kb / 1024 / 8;
	return (mib < 16 ? 16 : mib > 256 ? 256 : mib) << 20;
}

/* In the forked child: its own process group (stopped as one), dies with
 * rtlat (SIGTERM: stress-ng ends its stressors), on the load's CPUs,
 * output into the temp dir's log. Then exec. */
static void child_exec(const struct load_run *l, const char *log, char **av)
{
	cpu_set_t set;
	sigset_t none;
	long i, fd, max = sysconf(_SC_OPEN_MAX);
	int sig;

	/* Nothing of rtlat's: a test's summary pipe held open here would
	 * keep the suite waiting for its end. */
	for (fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		close((int)fd);
	/* exec keeps the signal mask and what is ignored: a test that waits
	 * for its stop signals in sigwait (the timer) has them blocked, and
	 * its load would not end on SIGTERM. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		_exit(127);
	if (l->o->cpus.n > 0) {
		CPU_ZERO(&set);
		for (i = 0; i < l->o->cpus.n; i++)
			CPU_SET(l->o->cpus.cpu[i], &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	execvp(av[0], av);
	fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
	_exit(127);
}

static pid_t spawn(const struct load_run *l, const char *name, char **av)
{
	char log[300];
	pid_t pid;

	snprintf(log, sizeof(log), "%s/%s.log", l->dir, name);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child_exec(l, log, av);
	if (pid > 0)
		setpgid(pid, pid);	/* before the child does: no race */
	return pid > 0 ? pid : 0;
}

static pid_t start_stress(struct load_run *l, long long secs)
{
	int n = load_cpus(l->o), half = n > 1 ? n / 2 : 1;
	/* Ports of our own, so that two runs on one host do not collide. */
	int port = 20000 + (int)(getpid() % 4000) * 8;
	char a[8][32], yaml[300], tmp[300];
	char *av[32];
	int k = 0;

	snprintf(a[0], sizeof(a[0]), "%d", n);
	snprintf(a[1], sizeof(a[1]), "%d", half);
	snprintf(a[2], sizeof(a[2]), "%lldb", vm_bytes(l->o) / half);
	snprintf(a[3], sizeof(a[3]), "%d", port);
	snprintf(a[4], sizeof(a[4]), "%d", port + 4);
	/* Its own end too, should rtlat not stop it (a margin past the test);
	 * 0: a test until stopped, no end of its own (rtlat's death still
	 * ends it: PR_SET_PDEATHSIG). */
	snprintf(a[5], sizeof(a[5]), "%llds", secs > 0 ? secs + 60 : 0);
	snprintf(yaml, sizeof(yaml), "%s/stress-ng.yaml", l->dir);
	snprintf(tmp, sizeof(tmp), "%s/tmp", l->dir);
	if (mkdir(tmp, 0700))
		return 0;
	av[k++] = "stress-ng";
	av[k++] = "--cpu"; av[k++] = a[0];
	av[k++] = "--vm"; av[k++] = a[1];
	av[k++] = "--vm-bytes"; av[k++] = a[2];
	av[k++] = "--io"; av[k++] = "1";
	av[k++] = "--sock"; av[k++] = a[1];
	av[k++] = "--sock-port"; av[k++] = a[3];
	av[k++] = "--udp"; av[k++] = a[1];
	av[k++] = "--udp-port"; av[k++] = a[4];
	av[k++] = "--timeout"; av[k++] = a[5];
	av[k++] = "--metrics-brief";
	av[k++] = "--yaml"; av[k++] = yaml;
	av[k++] = "--temp-path"; av[k++] = tmp;
	av[k] = NULL;
	return spawn(l, "stress-ng", av);
}

int load_start(struct load_run *l, const struct load_opts *o,
	       const char *prog, long long secs)
{
	const char *tmpdir = getenv("TMPDIR");
	char groups[16];
	char *hb[] = { "hackbench", "-P", "-g", groups, "-l", "1000000000",
		       "-s", "512", NULL };
	char *sh[] = { "sh", "-c", (char *)o->cmd, NULL };

	memset(l, 0, sizeof(*l));
	l->o = o;
	snprintf(l->dir, sizeof(l->dir), "%s/rtlat-load-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(l->dir)) {
		fprintf(stderr, "%s: --load: cannot make a temp dir: %s\n", prog,
			strerror(errno));
		l->dir[0] = '\0';
		return -1;
	}
	l->start_ns = clock_now_ns();
	if (o->kind != LOAD_NONE && !(l->stress = start_stress(l, secs)))
		goto fail;
	if (o->kind == LOAD_DEFAULT && in_path("hackbench")) {
		snprintf(groups, sizeof(groups), "%d", load_cpus(o));
		l->hackbench = spawn(l, "hackbench", hb);
	}
	if (o->cmd && !(l->cmd = spawn(l, "cmd", sh)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "%s: --load: cannot start the load: %s\n", prog, strerror(errno));
	return -1;
}

/* Wait for pid until deadline (ms of clock_now_ns); 1: reaped, status. */
static int reap_by(pid_t pid, int *status, int64_t deadline)
{
	struct timespec pause = { 0, 20 * 1000000 };

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		if (clock_now_ns() >= deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
}

/* After its SIGTERM: reaped by the deadline, else the group killed;
 * every member gone. The exit status (128+signal), -1: none. */
static int stop_group(pid_t pid, int64_t deadline)
{
	int status = 0;

	if (!pid)
		return -1;
	if (!reap_by(pid, &status, deadline)) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	kill(-pid, SIGKILL);	/* what of the group is left (hackbench's) */
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* stress-ng's YAML: its version and each stressor's bogo-ops. */
static void read_metrics(const struct load_run *l, struct load_result *r)
{
	char path[300], line[256], name[16];
	double v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stress-ng.yaml", l->dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " stress-ng-version: %31s", r->version) == 1)
			continue;
		if (sscanf(line, " - stressor: %15s", name) == 1 &&
		    r->nstress < LOAD_STRESSORS) {
			snprintf(r->stress[r->nstress].name, sizeof(name), "%s", name);
			r->nstress++;
		} else if (r->nstress && sscanf(line, " bogo-ops: %lf", &v) == 1) {
			r->stress[r->nstress - 1].bogo_ops = v;
		} else if (r->nstress &&
			   sscanf(line, " bogo-ops-per-second-real-time: %lf", &v) == 1) {
			r->stress[r->nstress - 1].per_s = v;
		}
	}
	if (f)
		fclose(f);
}

/* The command's last lines of output (its log's last bytes, from a line's
 * start). */
static void read_tail(const struct load_run *l, struct load_result *r)
{
	char path[300];
	ssize_t n;
	off_t size;
	int fd;
	char *nl;

	snprintf(path, sizeof(path), "%s/cmd.log", l->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > LOAD_TAIL - 1)
		lseek(fd, size - (LOAD_TAIL - 1), SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, r->cmd_tail, LOAD_TAIL - 1);
	close(fd);
	r->cmd_tail[n > 0 ? n : 0] = '\0';
	nl = strchr(r->cmd_tail, '\n');
	if (size > LOAD_TAIL - 1 && nl)
		memmove(r->cmd_tail, nl + 1, strlen(nl + 1) + 1);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

void load_stop(struct load_run *l, struct load_result *r)
{
	int64_t deadline = clock_now_ns() + LOAD_STOP_MS * 1000000LL;
	int status;

	memset(r, 0, sizeof(*r));
	r->stress_status = r->cmd_status = -1;
	if (!l->dir[0])
		return;
	r->ran = l->stress || l->cmd;
	r->secs = (double)(clock_now_ns() - l->start_ns) / 1e9;
	r->hackbench = l->hackbench > 0;
	/* A command that already ended is not "stopped". */
	if (l->cmd && waitpid(l->cmd, &status, WNOHANG) == l->cmd) {
		r->cmd_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
						    : WEXITSTATUS(status);
		kill(-l->cmd, SIGKILL);
		l->cmd = 0;
	}
	/* All asked to end at once: stress-ng's parent alone (it ends its
	 * stressors and writes its metrics), the others' groups. */
	if (l->stress)
		kill(l->stress, SIGTERM);
	if (l->hackbench)
		kill(-l->hackbench, SIGTERM);
	if (l->cmd) {
		kill(-l->cmd, SIGTERM);
		r->cmd_stopped = true;
		r->cmd_status = stop_group(l->cmd, deadline);
	}
	r->cmd = l->o->cmd;
	stop_group(l->hackbench, deadline);
	r->stress_status = stop_group(l->stress, deadline);
	read_metrics(l, r);
	read_tail(l, r);
	/* stress-ng's temp files are under it (--temp-path). */
	nftw(l->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	l->dir[0] = '\0';
}

void load_json(struct json *j, const struct load_result *r)
{
	char *line, *save, tail[LOAD_TAIL];
	int i;

	json_obj_open(j, "load");
	json_bool(j, "stress_ng", r->stress_status >= 0);
	json_str(j, "stress_ng_version", r->version);
	json_int(j, "stress_ng_status", r->stress_status);
	json_bool(j, "hackbench", r->hackbench);
	json_double(j, "seconds", r->secs);
	json_arr_open(j, "stressors");
	for (i = 0; i < r->nstress; i++) {
		json_obj_open(j, NULL);
		json_str(j, "name", r->stress[i].name);
		json_double(j, "bogo_ops", r->stress[i].bogo_ops);
		json_double(j, "bogo_ops_per_s", r->stress[i].per_s);
		json_obj_close(j);
	}
	json_arr_close(j);
	if (r->cmd) {
		json_obj_open(j, "cmd");
		json_str(j, "command", r->cmd);
		json_int(j, "exit_status", r->cmd_status);
		json_bool(j, "stopped", r->cmd_stopped);
		json_arr_open(j, "output_tail");
		snprintf(tail, sizeof(tail), "%s", r->cmd_tail);
		for (line = strtok_r(tail, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			json_str(j, NULL, line);
		json_arr_close(j);
		json_obj_close(j);
	} else {
		json_null(j, "cmd");
	}
	json_obj_close(j);
}
