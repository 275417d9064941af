// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport_sigwait.c - signals (sigwaittest): pthread_kill/kill of
 * SIGUSR1 (SIGUSR2 back) waited with sigwait; --rt uses sigqueue of
 * SIGRTMIN (SIGRTMIN+1 back) waited with sigwaitinfo. Both waits are the
 * same rt_sigtimedwait system call; sigwaitinfo is used for both because
 * glibc's sigwait() retries on EINTR and could not be woken to stop.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "util/opts.h"
#include "pair/pair_types.h"
#include "pair/pair_test.h"

struct sigwait_config {
	bool fork, rt;
	int sig[2];		/* per direction, from --rt */
};

static const struct opt sigwait_opts[] = {
	{ .short_name = 'f', .long_name = "fork", .type = OPT_FLAG,
	  .arg = OPT_ARG_OPTIONAL, .argname = "OPT",
	  .dest = OPT_AT(struct sigwait_config, fork),
	  .help = "fork two processes per pair instead of creating threads" },
	{ .long_name = "rt", .type = OPT_FLAG, .arg = OPT_ARG_NONE,
	  .dest = OPT_AT(struct sigwait_config, rt),
	  .help = "real-time signals: sigqueue SIGRTMIN(+1) and sigwaitinfo" },
	OPT_END
};

/* Block both signals in the main thread: threads and children inherit it,
 * so a signal is only ever taken by the waiting worker. */
static int sigwait_setup(struct pair_run *run)
{
	struct sigwait_config *tc = run->tcfg;
	sigset_t set;

	run->cfg->fork = tc->fork;
	tc->sig[DIR_FWD] = tc->rt ? SIGRTMIN : SIGUSR1;
	tc->sig[DIR_BACK] = tc->rt ? SIGRTMIN + 1 : SIGUSR2;
	sigemptyset(&set);
	sigaddset(&set, tc->sig[0]);
	sigaddset(&set, tc->sig[1]);
	return pthread_sigmask(SIG_BLOCK, &set, NULL) ? -1 : 0;
}

/*
 * A queued signal to one thread: glibc's pthread_sigqueue, or where the C
 * library has none (musl) the system call under it, to the thread's id.
 */
static int thread_sigqueue(const struct pair_worker *to, int sig, union sigval v)
{
#ifdef __GLIBC__
	return pthread_sigqueue(to->thread, sig, v);
#else
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = to->pid;
	si.si_uid = getuid();
	si.si_value = v;
	return syscall(SYS_rt_tgsigqueueinfo, to->pid, to->tid, sig, &si) ? errno : 0;
#endif
}

static int sigwait_send(struct pair *p, enum pair_dir dir)
{
	const struct pair_worker *to = &p->w[dir == DIR_FWD ? ROLE_RECEIVER : ROLE_SENDER];
	const struct sigwait_config *tc = p->run->tcfg;
	union sigval v = { .sival_int = p->index };
	int sig = tc->sig[dir], err;

	if (pair_is_fork(p))
		err = tc->rt ? sigqueue(to->pid, sig, v) : kill(to->pid, sig);
	else
		err = errno = tc->rt ? thread_sigqueue(to, sig, v) :
			pthread_kill(to->thread, sig);
	return err ? -errno : 0;
}

static int sigwait_receive(struct pair *p, enum pair_dir dir)
{
	const struct sigwait_config *tc = p->run->tcfg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, tc->sig[dir]);
	return sigwaitinfo(&set, NULL) < 0 ? -errno : 0;
}

static const struct transport_ops sigwait_transport = {
	.setup = sigwait_setup,
	.send = sigwait_send,
	.receive = sigwait_receive,
};

const struct test_ops test_sigwait = PAIR_TEST("sigwait", "sigwaittest",
	"signal to sigwait latency", &sigwait_transport, sigwait_opts,
	struct sigwait_config, "-l 200 --rt");
