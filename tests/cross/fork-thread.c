// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fork-thread.c - tests/cross-check's probe of qemu-user, not part of
 * rtlat: a process with a thread forks, and the child makes a thread.
 * Exit 0 where that works (any Linux); qemu-user 7.2 aborts the child
 * (qemu_plugin_vcpu_init_hook: assertion failed).
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *arg)
{
	pause();
	return arg;
}

static void *nop(void *arg)
{
	return arg;
}

int main(void)
{
	pthread_t t, u;
	int st = 1;
	pid_t p;

	if (pthread_create(&t, NULL, idle, NULL))
		return 1;
	p = fork();
	if (!p)
		_exit(pthread_create(&u, NULL, nop, NULL) || pthread_join(u, NULL));
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 1;
	return !(WIFEXITED(st) && !WEXITSTATUS(st));
}
