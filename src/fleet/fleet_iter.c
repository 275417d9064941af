// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet_iter.c - --iterations N: iterations 1..N-1 each run the test's
 * whole lifecycle (the run's once()) in a forked child (a test's state is
 * made for one run), which sends its series back as summary lines; the last iteration runs in
 * this process, which then holds every iteration's series, so the JSON,
 * the verdict and the fleet outputs cover them all. Every iteration writes
 * the --json (each over the last, with the iterations so far), so a run
 * stopped in an early iteration still leaves its JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fleet/fleet.h"

static void child(struct fleet *fl, const struct fleet_iter *it, int fd,
		  pid_t parent)
{
	char line[FLEET_LINE_MAX];
	int status, i, from = fleet_raw_count(fl);

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(1);
	unsetenv("RTLAT_SUMMARY_FD");
	status = fleet_kept(fl, it->prog, it->once(it->arg));
	for (i = from; i < fleet_raw_count(fl); i++)
		if (fleet_rec_format(line, sizeof(line), fleet_raw(fl, i)) > 0 &&
		    write(fd, line, strlen(line)) < 0)
			break;
	close(fd);
	exit(status);
}

/* The child's records, read while it runs (many, a part per CPU, would
 * fill the pipe and stop it before it ends) and kept line by line: all of
 * them, however many. */
struct recs_in {
	char line[FLEET_LINE_MAX];	/* the line so far */
	size_t len;
};

static void take(struct fleet *fl, struct recs_in *in, const char *p, size_t n)
{
	struct fleet_rec r;

	for (; n; p++, n--) {
		if (*p != '\n') {
			if (in->len < sizeof(in->line) - 1)
				in->line[in->len++] = *p;
			continue;
		}
		in->line[in->len] = '\0';
		in->len = 0;
		if (!fleet_rec_parse(in->line, fl->test, &r))
			fleet_add(fl, &r);
	}
}

static void drain(struct fleet *fl, int fd, struct recs_in *in)
{
	char buf[4096];
	ssize_t got;

	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got > 0)
			take(fl, in, buf, (size_t)got);
		else if (got == 0 || errno != EINTR)
			break;
	}
}

/* One iteration in a child: its exit status; *stopped on a stop signal. */
static int iterate_child(struct fleet *fl, const struct fleet_iter *it,
			 bool *stopped)
{
	struct recs_in in = { .len = 0 };
	pid_t parent = getpid(), pid;
	int fds[2], status = 0;

	if (pipe(fds))
		return 1;
	/* Read without waiting; the child writes as usual. */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fl, it, fds[1], parent);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 1;
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (!*stopped && it->stop_seen(it->arg)) {
			*stopped = true;
			kill(pid, SIGTERM);
		}
		if (it->forward)
			it->forward(it->arg, pid);
		drain(fl, fds[0], &in);
	}
	drain(fl, fds[0], &in);
	close(fds[0]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int fleet_iterate(struct fleet *fl, const struct fleet_iter *it)
{
	long long n = fl->opts ? fl->opts->iterations : 1, i;
	bool stopped = false;
	int status;

	for (i = 1; i < n; i++) {
		fprintf(stderr, "%s: iteration %lld of %lld\n", it->prog, i, n);
		status = iterate_child(fl, it, &stopped);
		/* 2: the run was refused (run_memory_check), as each would be. */
		if (status == 1 || status == OPTS_EXIT_USAGE || stopped)
			return status;
	}
	if (n > 1)
		fprintf(stderr, "%s: iteration %lld of %lld\n", it->prog, n, n);
	return it->once(it->arg);
}
