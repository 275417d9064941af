// SPDX-License-Identifier: GPL-2.0-or-later
/* cleanup.c - registry of what a run created, and its janitor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cleanup.h"

#define CL_MAX 4096
#define CL_NAME 120

enum cl_kind {
	CL_FREE, CL_SYSV_SEM, CL_MQ, CL_SHM, CL_SEM_NAMED, CL_FILE, CL_DIR,
	CL_CHILD, CL_TRACEFS,
};

struct cl_entry {
	int kind;
	int id;			/* semid or pid */
	char name[CL_NAME];
};

/* Shared with the janitor, which acts on it if the owner dies. */
struct cl_registry {
	pthread_mutex_t lock;
	pid_t owner;
	int used;		/* high-water mark of e[] */
	struct cl_entry e[CL_MAX];
};

static struct cl_registry *reg;
static int janitor_fd = -1;
static pid_t janitor_pid;

void *shared_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void shared_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

void cleanup_unique_name(char *buf, size_t len, const char *tag, int n)
{
	snprintf(buf, len, "/rtlat-%d-%s-%d", (int)getpid(), tag, n);
}

static int add(int kind, int id, const char *name)
{
	int i, ret = -ENOSPC;

	if (!reg)
		return -EINVAL;
	pthread_mutex_lock(&reg->lock);
	for (i = 0; i < CL_MAX; i++) {
		struct cl_entry *e = &reg->e[i];

		if (e->kind != CL_FREE)
			continue;
		e->id = id;
		snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
		/* Publish the kind last: the janitor reads without the lock. */
		__atomic_store_n(&e->kind, kind, __ATOMIC_RELEASE);
		if (i >= reg->used)
			reg->used = i + 1;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&reg->lock);
	return ret;
}

static void del(int kind, int id, const char *name)
{
	int i;

	if (!reg)
		return;
	pthread_mutex_lock(&reg->lock);
	for (i = 0; i < reg->used; i++) {
		struct cl_entry *e = &reg->e[i];

		if (e->kind == kind && e->id == id &&
		    (!name || !strcmp(e->name, name))) {
			__atomic_store_n(&e->kind, CL_FREE, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&reg->lock);
}

int cleanup_add_sysv_sem(int semid) { return add(CL_SYSV_SEM, semid, NULL); }
int cleanup_add_mq(const char *name) { return add(CL_MQ, 0, name); }
int cleanup_add_shm(const char *name) { return add(CL_SHM, 0, name); }
int cleanup_add_sem_named(const char *name) { return add(CL_SEM_NAMED, 0, name); }
int cleanup_add_file(const char *path) { return add(CL_FILE, 0, path); }
int cleanup_add_dir(const char *path) { return add(CL_DIR, 0, path); }
int cleanup_add_child(pid_t pid) { return add(CL_CHILD, pid, NULL); }
int cleanup_add_tracefs_instance(const char *path) { return add(CL_TRACEFS, 0, path); }
void cleanup_del_tracefs_instance(const char *path) { del(CL_TRACEFS, 0, path); }
void cleanup_del_mq(const char *name) { del(CL_MQ, 0, name); }
void cleanup_del_sem_named(const char *name) { del(CL_SEM_NAMED, 0, name); }
void cleanup_del_child(pid_t pid) { del(CL_CHILD, pid, NULL); }

static void remove_dir(const char *path)
{
	char file[CL_NAME + 260];
	struct dirent *d;
	DIR *dir = opendir(path);

	if (dir) {
		while ((d = readdir(dir))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(file, sizeof(file), "%s/%s", path, d->d_name);
			unlink(file);
		}
		closedir(dir);
	}
	rmdir(path);
}

/* A tracefs instance is busy while a process holds one of its files open:
 * the children just killed may not have exited yet. */
static void remove_instance(const char *path)
{
	int i;

	for (i = 0; i < 200 && rmdir(path) && errno == EBUSY; i++)
		usleep(10000);
}

static void release(struct cl_entry *e, int reap)
{
	switch (e->kind) {
	case CL_CHILD:
		kill(e->id, SIGKILL);
		if (reap)
			waitpid(e->id, NULL, 0);
		break;
	case CL_SYSV_SEM: semctl(e->id, 0, IPC_RMID); break;
	case CL_MQ: mq_unlink(e->name); break;
	case CL_SHM: shm_unlink(e->name); break;
	case CL_SEM_NAMED: sem_unlink(e->name); break;
	case CL_FILE: unlink(e->name); break;
	case CL_DIR: remove_dir(e->name); break;
	case CL_TRACEFS: remove_instance(e->name); break;
	default: break;
	}
	e->kind = CL_FREE;
}

/* Children first (they may hold the objects), then files, then dirs. */
static void release_all(int reap)
{
	static const int order[] = {
		CL_CHILD, CL_SYSV_SEM, CL_MQ, CL_SHM, CL_SEM_NAMED, CL_FILE, CL_DIR,
		CL_TRACEFS
	};
	unsigned int k;
	int i;

	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (i = 0; i < reg->used; i++)
			if (__atomic_load_n(&reg->e[i].kind, __ATOMIC_ACQUIRE) == order[k])
				release(&reg->e[i], reap);
}

static void janitor(int fd)
{
	char c;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "rtlat-janitor");
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	/* EOF: the owner is gone. Its children are not ours to reap. */
	release_all(0);
	_exit(0);
}

int cleanup_init(void)
{
	pthread_mutexattr_t a;
	int fds[2];

	if (reg)
		return 0;
	reg = shared_alloc(sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&reg->lock, &a);
	pthread_mutexattr_destroy(&a);
	reg->owner = getpid();
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	janitor_pid = fork();
	if (janitor_pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (janitor_pid == 0) {
		close(fds[1]);
		janitor(fds[0]);
	}
	close(fds[0]);
	janitor_fd = fds[1];
	atexit(cleanup_run);
	return 0;
}

void cleanup_run(void)
{
	if (!reg || reg->owner != getpid())
		return;
	release_all(1);
	if (janitor_fd >= 0) {
		close(janitor_fd);
		janitor_fd = -1;
		waitpid(janitor_pid, NULL, 0);
	}
}

int cleanup_child_setup(void)
{
	if (janitor_fd >= 0)
		close(janitor_fd);
	janitor_fd = -1;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return -errno;
	/* The parent may have died before prctl took effect. */
	if (reg && getppid() != reg->owner)
		_exit(1);
	return 0;
}
