// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request_spawn.c - the spawner: the process that forks the request
 * test's server, clients and load processes.
 *
 * They are forked as the run goes (a load process per round, a client
 * per round of a sweep), while the run has threads (the status thread,
 * the recorder's, --explain's); a fork beside threads is undefined for
 * anything but async-signal-safe calls in the child, and these children
 * make threads (the server), allocate and print (ThreadSanitizer stops
 * them: "starting new threads after multi-threaded fork"). So the run
 * forks one process at setup, before it has any thread, and that
 * process, which never makes one, forks each of them when main asks,
 * at the same instant as before. It sends back each child's pid and, as
 * it reaps them, their wait status, which main reads where it called
 * waitpid before. Main still signals them and the janitor still kills
 * them by pid; each dies with the spawner, which dies with main
 * (PR_SET_PDEATHSIG).
 *
 * Main and the spawner talk over a SOCK_SEQPACKET pair, one struct
 * spawn_msg a message; a client's connection goes with its ask
 * (SCM_RIGHTS). The spawner is a copy of main at setup: what a child
 * reads that main sets later comes in the ask (whether --explain runs,
 * the temp directory of the load processes).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "system/rtsetup.h"
#include "request/request_client.h"
#include "request/request_load.h"
#include "request/request_server.h"
#include "request/request_spawn.h"

enum { SPAWN_ASK, SPAWN_MADE, SPAWN_ENDED };

struct spawn_msg {
	int what;		/* SPAWN_* */
	int kind, index;	/* ASK */
	pid_t pid;		/* MADE: the child, or -errno; ENDED: who */
	int status;		/* ENDED: its wait status */
	bool explain;		/* ASK: --explain runs */
	char tmpdir[sizeof(((struct req_run *)0)->tmpdir)];	/* ASK */
};

static void child(struct req_run *run, const struct spawn_msg *m, int fd)
{
	run->conn_fd = fd;
	if (!m->explain)
		run->explain = NULL;
	memcpy(run->tmpdir, m->tmpdir, sizeof(run->tmpdir));
	if (m->kind == REQ_CHILD_SERVER)
		req_server_child(run);
	else if (m->kind == REQ_CHILD_CLIENT)
		req_client_child(run, m->index);
	req_load_child(run, m->index);
}

/* An ask, and the descriptor that comes with it (-1: none); 0 at EOF. */
static ssize_t recv_ask(int sock, struct spawn_msg *m, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr h = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);

	*fd = -1;
	c = n > 0 ? CMSG_FIRSTHDR(&h) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

static void reap(int sock)
{
	struct spawn_msg m = { .what = SPAWN_ENDED };
	int status;

	while ((m.pid = waitpid(-1, &status, WNOHANG)) > 0) {
		m.status = status;
		send(sock, &m, sizeof(m), MSG_NOSIGNAL);
	}
}

static void make(struct req_run *run, int sock, int sfd, const sigset_t *mask,
		 struct spawn_msg *m, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		close(sock);
		close(sfd);
		child(run, m, fd);
	}
	if (fd >= 0)
		close(fd);
	/* Only the server listens: no later child gets the socket. */
	if (pid > 0 && m->kind == REQ_CHILD_SERVER && run->listen_fd >= 0) {
		close(run->listen_fd);
		run->listen_fd = -1;
	}
	m->what = SPAWN_MADE;
	m->pid = pid > 0 ? pid : -errno;
	send(sock, m, sizeof(*m), MSG_NOSIGNAL);
}

/* The spawner's life: forks what main asks until main closes its end. */
static void __attribute__((noreturn)) spawner(struct req_run *run, int sock)
{
	sigset_t chld, mask;
	struct pollfd p[2];
	struct spawn_msg m;
	int fd, sfd;

	prctl(PR_SET_NAME, "rtlat-spawn");
	if (cleanup_child_setup())
		_exit(1);
	cleanup_forker();
	/* Main alone decides when the run ends; its children get its mask. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* Each client's connection comes with its ask. */
	if (run->conn_fd >= 0)
		close(run->conn_fd);
	run->conn_fd = -1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &mask);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC);
	if (sfd < 0)
		_exit(1);
	p[0] = (struct pollfd){ .fd = sock, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) < 0 && errno != EAGAIN)
				_exit(1);
			reap(sock);
		}
		if (!p[0].revents)
			continue;
		if (recv_ask(sock, &m, &fd) <= 0)
			break;
		make(run, sock, sfd, &mask, &m, fd);
	}
	_exit(0);
}

int req_spawner_start(struct req_run *run)
{
	int sv[2];
	pid_t pid;

	if (rt_record_share() ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/* Nothing buffered is written twice (the spawner inherits it). */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		close(sv[0]);
		spawner(run, sv[1]);
	}
	close(sv[1]);
	cleanup_add_child(pid);
	run->spawner_pid = pid;
	run->spawn_fd = sv[0];
	run->nended = 0;
	return 0;
}

/* The next message from the spawner; false when it is gone (or, not
 * blocking, none is there). An end notice is kept for req_spawned_ended. */
static bool next_msg(struct req_run *run, struct spawn_msg *m, bool block)
{
	ssize_t n;

	if (run->spawn_fd < 0)
		return false;
	do
		n = recv(run->spawn_fd, m, sizeof(*m), block ? 0 : MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		run->spawner_lost = true;
		close(run->spawn_fd);
		run->spawn_fd = -1;
	}
	if (n != (ssize_t)sizeof(*m))
		return false;
	if (m->what == SPAWN_ENDED &&
	    run->nended < (int)(sizeof(run->ended) / sizeof(run->ended[0]))) {
		run->ended[run->nended][0] = m->pid;
		run->ended[run->nended++][1] = m->status;
	}
	return true;
}

pid_t req_spawn(struct req_run *run, enum req_child_kind kind, int index, int fd)
{
	struct spawn_msg m = {
		.what = SPAWN_ASK, .kind = kind, .index = index,
		.explain = run->explain != NULL,
	};
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	memcpy(m.tmpdir, run->tmpdir, sizeof(m.tmpdir));
	if (fd >= 0) {
		h.msg_control = ctl;
		h.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (run->spawn_fd < 0)
		return -ECHILD;
	if (sendmsg(run->spawn_fd, &h, MSG_NOSIGNAL) < 0)
		return -errno;
	while (next_msg(run, &m, true))
		if (m.what == SPAWN_MADE)
			return m.pid;
	return -ECHILD;
}

bool req_spawned_ended(struct req_run *run, pid_t pid, int *status, bool block)
{
	struct spawn_msg m;
	int i;

	for (;;) {
		for (i = 0; i < run->nended; i++)
			if (run->ended[i][0] == pid) {
				*status = run->ended[i][1];
				run->ended[i][0] = run->ended[--run->nended][0];
				run->ended[i][1] = run->ended[run->nended][1];
				return true;
			}
		if (!next_msg(run, &m, block))
			return false;
	}
}

bool req_spawner_lost(const struct req_run *run)
{
	return run->spawner_lost;
}

void req_spawner_stop(struct req_run *run)
{
	if (run->spawner_pid <= 0)
		return;
	if (run->spawn_fd >= 0)
		close(run->spawn_fd);
	run->spawn_fd = -1;
	waitpid(run->spawner_pid, NULL, 0);
	cleanup_del_child(run->spawner_pid);
	run->spawner_pid = 0;
}
