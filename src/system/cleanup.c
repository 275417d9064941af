// SPDX-License-Identifier: GPL-2.0-or-later
/* cleanup.c - registry of what a run created, and its janitor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>
#include "system/cleanup.h"

#define CL_MAX 4096
#define CL_NAME 120
/* Files and directories whose path is too long for an entry's name: a
 * truncated path must never be registered, since removing it could
 * remove another file (a result file renamed from its temp file). */
#define CL_PATHS 32

enum cl_kind {
	CL_FREE, CL_SYSV_SEM, CL_MQ, CL_SHM, CL_SEM_NAMED, CL_FILE, CL_DIR,
	CL_CHILD, CL_TRACEFS,
};

struct cl_entry {
	int kind;
	int id;			/* semid or pid; files, dirs: path slot + 1 or 0 */
	char name[CL_NAME];
};

/* Shared with the janitor, which acts on it if the owner dies. */
struct cl_registry {
	pthread_mutex_t lock;
	pid_t owner;
	int used;		/* high-water mark of e[] */
	struct cl_entry e[CL_MAX];
	char path[CL_PATHS][PATH_MAX];	/* "" when free */
};

static struct cl_registry *reg;
static int janitor_fd = -1;
static pid_t janitor_pid;
/* The process that forks this one's workers when not the owner (a
 * spawner: cleanup_forker); 0: the owner. */
static pid_t forker;

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

static bool is_path(int kind)
{
	return kind == CL_FILE || kind == CL_DIR;
}

static const char *entry_name(const struct cl_entry *e)
{
	return is_path(e->kind) && e->id ? reg->path[e->id - 1] : e->name;
}

/* A free path slot for a long path: its index + 1, or 0 (lock held). */
static int long_path(const char *name)
{
	int i;

	for (i = 0; i < CL_PATHS; i++)
		if (!reg->path[i][0]) {
			snprintf(reg->path[i], sizeof(reg->path[i]), "%s", name);
			return i + 1;
		}
	return 0;
}

static int add(int kind, int id, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	int i, ret = -ENOSPC;

	if (!reg)
		return -EINVAL;
	if (n >= (is_path(kind) ? PATH_MAX : CL_NAME))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&reg->lock);
	for (i = 0; i < CL_MAX; i++) {
		struct cl_entry *e = &reg->e[i];

		if (e->kind != CL_FREE)
			continue;
		e->id = id;
		e->name[0] = '\0';
		if (n >= CL_NAME) {	/* a path (checked above) */
			e->id = long_path(name);
			if (!e->id)
				break;
		} else if (name) {
			snprintf(e->name, sizeof(e->name), "%s", name);
		}
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

/* A path is found by its name; anything else by its id, and its name
 * when one is given. */
static bool matches(const struct cl_entry *e, int kind, int id, const char *name)
{
	if (is_path(kind))
		return name && !strcmp(entry_name(e), name);
	if (e->id != id)
		return false;
	return !name || !strcmp(e->name, name);
}

static void del(int kind, int id, const char *name)
{
	int i;

	if (!reg)
		return;
	pthread_mutex_lock(&reg->lock);
	for (i = 0; i < reg->used; i++) {
		struct cl_entry *e = &reg->e[i];

		if (e->kind != kind)
			continue;
		if (matches(e, kind, id, name)) {
			if (is_path(kind) && e->id)
				reg->path[e->id - 1][0] = '\0';
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
void cleanup_del_file(const char *path) { del(CL_FILE, 0, path); }
int cleanup_add_dir(const char *path) { return add(CL_DIR, 0, path); }
int cleanup_add_child(pid_t pid) { return add(CL_CHILD, pid, NULL); }
int cleanup_add_tracefs_instance(const char *path) { return add(CL_TRACEFS, 0, path); }
void cleanup_del_tracefs_instance(const char *path) { del(CL_TRACEFS, 0, path); }
void cleanup_del_mq(const char *name) { del(CL_MQ, 0, name); }
void cleanup_del_sem_named(const char *name) { del(CL_SEM_NAMED, 0, name); }
void cleanup_del_child(pid_t pid) { del(CL_CHILD, pid, NULL); }

static void remove_dir(const char *path)
{
	char file[PATH_MAX + 260];
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
	case CL_FILE: unlink(entry_name(e)); break;
	case CL_DIR: remove_dir(entry_name(e)); break;
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
	/* A process group of its own: a SIGKILL to the run's group
	 * (timeout -s KILL, a lab job's end, kill -9 -PGID) would otherwise
	 * take the janitor with the owner and leave what it registered. */
	setpgid(0, 0);
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
	if (reg && getppid() != (forker ? forker : reg->owner))
		_exit(1);
	return 0;
}

void cleanup_forker(void)
{
	forker = getpid();
}
