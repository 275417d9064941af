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
#include "core/cleanup.h"
#include "core/outfile.h"
#include "core/stopsig.h"

#define MAX_LINKS 40		/* the kernel's MAXSYMLINKS */

/* A path walked to its last component, held by its directory's fd. */
struct walk {
	int dirfd;			/* O_PATH, -1: none */
	char dir[PATH_MAX];		/* dirfd as walked, for messages */
	char name[NAME_MAX + 1];	/* "": the path names a directory */
	struct stat st;			/* name's own; st_mode 0: missing */
	char rest[PATH_MAX];		/* what is left to walk */
	int links;
	char *why;
	size_t len;
};

static int walk_fail(struct walk *w)
{
	snprintf(w->why, w->len, "%s", strerror(errno));
	return -1;
}

/* dir/name, or name alone for the current directory. */
static void join(char *buf, size_t len, const char *dir, const char *name)
{
	if (!strcmp(dir, "."))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s%s%s", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

static int walk_root(struct walk *w, bool absolute)
{
	int fd = open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return walk_fail(w);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = fd;
	snprintf(w->dir, sizeof(w->dir), "%s", absolute ? "/" : ".");
	return 0;
}

/* The next component of rest into comp ("" at the end); rest keeps the
 * slash after it, so rest is "" only after the last component. */
static int next_comp(struct walk *w, char *comp)
{
	const char *s = w->rest + strspn(w->rest, "/");
	size_t n = strcspn(s, "/");

	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return walk_fail(w);
	}
	memcpy(comp, s, n);
	comp[n] = '\0';
	memmove(w->rest, s + n, strlen(s + n) + 1);
	return 0;
}

/*
 * Follow the link comp (fd, its own stat lst) of w->dirfd: the kernel's
 * protected_symlinks rule first, then its target goes before the rest.
 */
static int follow(struct walk *w, int fd, const char *comp,
		  const struct stat *lst)
{
	char target[PATH_MAX], link[PATH_MAX];
	struct stat d;
	ssize_t n;

	if (++w->links > MAX_LINKS)
		return errno = ELOOP, walk_fail(w);
	if (fstat(w->dirfd, &d))
		return walk_fail(w);
	if ((d.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) &&
	    lst->st_uid != geteuid() && lst->st_uid != d.st_uid) {
		join(link, sizeof(link), w->dir, comp);
		snprintf(w->why, w->len,
			 "'%s' is a symlink owned by uid %u, neither the caller nor the owner of its sticky world-writable directory: not followed (the kernel's fs.protected_symlinks rule)",
			 link, (unsigned int)lst->st_uid);
		return -1;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n <= 0)
		return errno = n ? errno : ENOENT, walk_fail(w);
	target[n] = '\0';
	if (strlen(target) + strlen(w->rest) >= sizeof(w->rest))
		return errno = ENAMETOOLONG, walk_fail(w);
	memmove(w->rest + n, w->rest, strlen(w->rest) + 1);
	memcpy(w->rest, target, (size_t)n);
	return target[0] == '/' ? walk_root(w, true) : 0;
}

/* One component: 1 the walk ends here, 0 go on, -1 failed. */
static int step(struct walk *w, const char *comp)
{
	bool last = !w->rest[0];
	int fd = openat(w->dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char dir[PATH_MAX];
	struct stat st;

	if (fd < 0 && last && errno == ENOENT) {
		snprintf(w->name, sizeof(w->name), "%s", comp);
		return 1;
	}
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return walk_fail(w);
	}
	if (S_ISLNK(st.st_mode)) {
		int rc = follow(w, fd, comp, &st);

		close(fd);
		return rc;
	}
	if (last) {
		close(fd);
		snprintf(w->name, sizeof(w->name), "%s", comp);
		w->st = st;
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return errno = ENOTDIR, walk_fail(w);
	}
	close(w->dirfd);
	w->dirfd = fd;
	join(dir, sizeof(dir), w->dir, comp);
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	return 0;
}

/* Walk path; on failure the reason is in why and nothing is held. */
static int walk(const char *path, struct walk *w, char *why, size_t len)
{
	char comp[NAME_MAX + 1];
	int rc = 0;

	memset(w, 0, sizeof(*w));
	w->dirfd = -1;
	w->why = why;
	w->len = len;
	if (strlen(path) >= sizeof(w->rest))
		return errno = ENAMETOOLONG, walk_fail(w);
	strcpy(w->rest, path);
	if (walk_root(w, path[0] == '/'))
		return -1;
	while (!rc) {
		rc = next_comp(w, comp);
		if (!rc && !comp[0])		/* it ends on a directory */
			rc = fstat(w->dirfd, &w->st) ? walk_fail(w) : 1;
		else if (!rc)
			rc = step(w, comp);
	}
	if (rc > 0)
		return 0;
	close(w->dirfd);
	w->dirfd = -1;
	return -1;
}

/*
 * O_EXCL temp file beside name in dirfd; the fd, or -1 (errno set). Its
 * writer holds an flock on it until it is renamed or removed, so that
 * what a writer killed outright left (SIGKILL before the janitor knew of
 * it) is told from a live writer's file: outfile_sweep.
 */
static int make_tmp(int dirfd, const char *name, char *tmp, size_t len)
{
	int fd, i;

	for (i = 0; i < 100; i++) {
		if (snprintf(tmp, len, "%s" OUTFILE_TMP_MARK "%d-%d", name,
			     (int)getpid(), i) >= (int)len)
			return errno = ENAMETOOLONG, -1;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0666);
		if (fd >= 0)
			flock(fd, LOCK_EX | LOCK_NB);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

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

/* A regular file or a new path: replaced by a temp file at the end. */
static bool replaced(const struct walk *w)
{
	return !w->st.st_mode || S_ISREG(w->st.st_mode);
}

int outfile_check(const char *path, char *why, size_t len)
{
	char tmp[NAME_MAX + 1];
	struct walk w;
	int fd, rc = -1;

	if (!*path)
		return snprintf(why, len, "empty file name"), -1;
	if (!strcmp(path, "-"))
		return 0;
	if (walk(path, &w, why, len))
		return -1;
	if (S_ISDIR(w.st.st_mode)) {
		snprintf(why, len, "'%s' is a directory", path);
	} else if (!replaced(&w)) {
		rc = faccessat(w.dirfd, w.name, W_OK, 0);
		if (rc)
			snprintf(why, len, "%s", strerror(errno));
	} else {
		fd = make_tmp(w.dirfd, w.name, tmp, sizeof(tmp));
		if (fd < 0) {
			snprintf(why, len, "cannot create a file in '%s': %s",
				 w.dir, strerror(errno));
		} else {
			close(fd);
			unlinkat(w.dirfd, tmp, 0);
			rc = 0;
		}
	}
	close(w.dirfd);
	return rc;
}

int outfile_create(const char *path, char *why, size_t len)
{
	struct walk w;
	int fd;

	if (walk(path, &w, why, len))
		return -1;
	fd = openat(w.dirfd, w.name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		walk_fail(&w);
	close(w.dirfd);
	return fd;
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
static int open_fifo(struct outfile *of, const char *prog, struct walk *w)
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
		return walk_fail(w);
	}
	/* A reader that goes away: EPIPE and one line, not death by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	return fd;
}

/* The temp file's path for the cleanup registry: its directory as the
 * kernel names it (/proc), else as walked. */
static void tmp_path(struct outfile *of, const struct walk *w)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", of->dirfd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n > 0 && dir[0] == '/')
		dir[n] = '\0';
	else
		snprintf(dir, sizeof(dir), "%s", w->dir);
	join(of->tmp, sizeof(of->tmp), dir, of->tmpname);
}

/* The file's fd by the rule (outfile.h); of holds the walk's directory. */
static int open_fd(struct outfile *of, const char *prog, struct walk *w)
{
	int fd;

	if (S_ISDIR(w->st.st_mode))
		return errno = EISDIR, walk_fail(w);
	if (S_ISFIFO(w->st.st_mode))
		return open_fifo(of, prog, w);
	if (!replaced(w)) {
		fd = openat(w->dirfd, w->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? walk_fail(w) : fd;
	}
	outfile_sweep(w->dirfd, w->name);
	fd = make_tmp(w->dirfd, w->name, of->tmpname, sizeof(of->tmpname));
	if (fd < 0) {
		of->tmpname[0] = '\0';
		return walk_fail(w);
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
	struct walk w;
	int fd = -1;

	memset(of, 0, sizeof(*of));
	of->dirfd = -1;
	of->opt = opt;
	of->path = path;
	if (!strcmp(path, "-")) {
		of->f = stdout;
		return of->f;
	}
	if (!walk(path, &w, why, sizeof(why))) {
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

size_t read_text(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t got;

	while (len < cap - 1) {
		got = read(fd, buf + len, cap - 1 - len);
		if (got > 0)
			len += (size_t)got;
		else if (got == 0 || errno != EINTR)
			break;
	}
	buf[len] = '\0';
	return len;
}
