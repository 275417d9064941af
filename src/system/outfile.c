// SPDX-License-Identifier: GPL-2.0-or-later
/* outfile.c - the output-file rule shared by every writer (see outfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "system/cleanup.h"
#include "system/outfile.h"
#include "system/stopsig.h"
#include "util/files.h"

/* The writer's PID in NAME.tmp-PID-N, or 0 when d is not name's temp. */
static pid_t tmp_writer(const char *d, const char *name)
{
	size_t n = strlen(name), m = strlen(OUTFILE_TMP_MARK);
	char *end;
	long pid;

	if (strncmp(d, name, n) != 0 || strncmp(d + n, OUTFILE_TMP_MARK, m) != 0)
		return 0;
	d += n + m;
	pid = strtol(d, &end, 10);
	if (end == d || *end != '-' || pid <= 0 || pid > INT_MAX)
		return 0;
	d = end + 1;
	strtol(d, &end, 10);
	return end != d && !*end ? (pid_t)pid : 0;
}

/*
 * Remove name's temp files whose writer is dead: its PID runs no process
 * and nobody holds the file's lock. A live writer is never touched: its
 * PID runs (a writer that has made its file but not locked it yet), or
 * it holds the lock (one in another PID namespace, or whose PID a
 * reused one hides). The PID is looked at again once the lock is held:
 * a new process given the dead writer's PID cannot have made this name
 * (O_EXCL: it existed), and one that made it after another sweep removed
 * the old file runs by then.
 */
static void outfile_sweep(int dirfd, const char *name)
{
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *d;
	struct stat st;
	pid_t pid;
	int fd;

	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((d = readdir(dir))) {
		pid = tmp_writer(d->d_name, name);
		if (!pid || pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		fd = openat(dfd, d->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    !flock(fd, LOCK_EX | LOCK_NB) && kill(pid, 0) && errno == ESRCH)
			unlinkat(dfd, d->d_name, 0);
		close(fd);
	}
	closedir(dir);
}


/* A stop signal waiting in the mask (a test that takes them by sigwait). */
static bool stop_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGHUP) == 1);
}

/* Set once a stop signal ended a wait: later FIFOs are not waited for. */
static bool fifo_given_up;

/*
 * A FIFO: wait for its reader (a writer's open fails with ENXIO until
 * there is one), until a stop signal comes, caught by a handler
 * (stopsig_count) or waiting in the mask (left there for the test).
 */
static int open_fifo(struct outfile *of, const char *prog, struct path_walk *w)
{
	const struct timespec nap = { 0, 20 * 1000 * 1000 };
	unsigned int seen = stopsig_count();
	bool told = false;
	int fd;

	for (;;) {
		fd = openat(w->dirfd, w->name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd >= 0 || (errno != ENXIO && errno != EINTR))
			break;
		if (fifo_given_up || stop_pending() || stopsig_count() != seen) {
			fifo_given_up = true;
			snprintf(w->why, w->len, "the FIFO had no reader; a stop signal ended the wait");
			return -1;
		}
		if (!told)
			fprintf(stderr, "%s: %s %s: waiting for a reader of the FIFO (SIGINT, SIGTERM or SIGHUP gives up)\n",
				prog, of->opt, of->path);
		told = true;
		nanosleep(&nap, NULL);
	}
	if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		if (fd >= 0)
			close(fd);
		return path_walk_fail(w);
	}
	/* A reader that goes away: EPIPE and one line, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return fd;
}

/* The temp file's path for the cleanup registry: its directory as the
 * kernel names it (/proc), else as walked. */
static void tmp_path(struct outfile *of, const struct path_walk *w)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", of->dirfd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n > 0 && dir[0] == '/')
		dir[n] = '\0';
	else
		snprintf(dir, sizeof(dir), "%s", w->dir);
	path_join(of->tmp, sizeof(of->tmp), dir, of->tmpname);
}

/* The file's fd by the rule (outfile.h); of holds the walk's directory. */
static int open_fd(struct outfile *of, const char *prog, struct path_walk *w)
{
	int fd;

	if (S_ISDIR(w->st.st_mode))
		return errno = EISDIR, path_walk_fail(w);
	if (S_ISFIFO(w->st.st_mode))
		return open_fifo(of, prog, w);
	if (!path_replaced(w)) {
		fd = openat(w->dirfd, w->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? path_walk_fail(w) : fd;
	}
	outfile_sweep(w->dirfd, w->name);
	fd = path_make_tmp(w->dirfd, w->name, of->tmpname, sizeof(of->tmpname));
	if (fd < 0) {
		of->tmpname[0] = '\0';
		return path_walk_fail(w);
	}
	of->dirfd = w->dirfd;
	w->dirfd = -1;
	snprintf(of->name, sizeof(of->name), "%s", w->name);
	tmp_path(of, w);
	cleanup_add_file(of->tmp);
	return fd;
}

/* Forget the temp file (gone: renamed or removed) and the directory. */
static void forget(struct outfile *of, bool remove)
{
	if (of->tmpname[0]) {
		if (remove)
			unlinkat(of->dirfd, of->tmpname, 0);
		/* Never left in the registry: the cleanup at exit must not
		 * remove a path that is not ours any more. */
		cleanup_del_file(of->tmp);
		of->tmpname[0] = '\0';
	}
	if (of->name[0])
		close(of->dirfd);
	of->name[0] = '\0';
	of->dirfd = -1;
}

FILE *outfile_open(struct outfile *of, const char *prog, const char *opt,
		   const char *path)
{
	char why[PATH_MAX + 256];
	struct path_walk w;
	int fd = -1;

	memset(of, 0, sizeof(*of));
	of->dirfd = -1;
	of->opt = opt;
	of->path = path;
	if (!strcmp(path, "-")) {
		of->f = stdout;
		return of->f;
	}
	if (!path_walk(path, &w, why, sizeof(why))) {
		fd = open_fd(of, prog, &w);
		if (w.dirfd >= 0)
			close(w.dirfd);
	}
	if (fd >= 0) {
		of->f = fdopen(fd, "w");
		if (of->f)
			return of->f;
		snprintf(why, sizeof(why), "%s", strerror(errno));
		close(fd);
	}
	fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, why);
	forget(of, true);
	return NULL;
}

bool outfile_rewritable(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return false;
	return stat(path, &st) || S_ISREG(st.st_mode);
}

/* The rename itself durable: the directory (held O_PATH) fsynced. */
static void sync_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	fsync(fd);	/* best effort: the file itself is already safe */
	close(fd);
}

int outfile_close(struct outfile *of, const char *prog)
{
	int err = 0;

	if (!of->f)
		return 0;
	if (fflush(of->f) || ferror(of->f))
		err = errno ? errno : EIO;
	/* Durable before it replaces the last one: after a power cut the
	 * name holds the old file or the new, whole (a checkpoint's). */
	if (!err && of->tmpname[0] && fsync(fileno(of->f)) && errno != EINVAL)
		err = errno;
	if (of->f != stdout && fclose(of->f) && !err)
		err = errno;
	of->f = NULL;
	if (!err && of->tmpname[0] &&
	    renameat(of->dirfd, of->tmpname, of->dirfd, of->name))
		err = errno;
	if (!err && of->tmpname[0])
		sync_dir(of->dirfd);
	forget(of, err != 0);
	if (!err)
		return 0;
	fprintf(stderr, "%s: %s %s: %s\n", prog, of->opt, of->path, strerror(err));
	return -1;
}

void outfile_discard(struct outfile *of)
{
	if (of->f && of->f != stdout)
		fclose(of->f);
	of->f = NULL;
	forget(of, true);
}
