/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cleanup.h - the one place that knows every IPC object, temp file and
 * child process a run created, and removes them on every exit path.
 *
 * The registry is in shared memory and watched by a small janitor process:
 * if the main process dies (even by SIGKILL), the janitor sees its pipe
 * close, kills the registered children and removes the registered objects.
 */
#ifndef RTLAT_CLEANUP_H
#define RTLAT_CLEANUP_H

#include <sys/types.h>

/* Set up the registry and the janitor. Call first. Returns 0 or -errno. */
int cleanup_init(void);
int cleanup_add_sysv_sem(int semid);
int cleanup_add_mq(const char *name);		/* "/rtlat-..." */
int cleanup_add_shm(const char *name);
int cleanup_add_sem_named(const char *name);
int cleanup_add_file(const char *path);
void cleanup_del_file(const char *path);	/* renamed or removed */
int cleanup_add_dir(const char *path);		/* removed with its files */
int cleanup_add_child(pid_t pid);
/* A tracefs instance directory: removed by rmdir (its files go with it). */
int cleanup_add_tracefs_instance(const char *path);
void cleanup_del_tracefs_instance(const char *path);
/* The object was removed / the child reaped by its owner. */
void cleanup_del_mq(const char *name);
void cleanup_del_sem_named(const char *name);
void cleanup_del_child(pid_t pid);
/* Kill and reap children, remove everything. Idempotent; only the process
 * that called cleanup_init acts. Also runs at exit. */
void cleanup_run(void);
/* In a forked worker: die with the parent (PR_SET_PDEATHSIG SIGKILL). */
int cleanup_child_setup(void);
/* In a forked process (after cleanup_child_setup) that forks the workers
 * from then on: their cleanup_child_setup checks it is their parent. */
void cleanup_forker(void);
/* A unique name: "/rtlat-<pid>-<tag>-<n>". */
void cleanup_unique_name(char *buf, size_t len, const char *tag, int n);
/* Shared anonymous memory (survives fork, never in /dev/shm). */
void *shared_alloc(size_t bytes);
void shared_free(void *p, size_t bytes);

#endif
