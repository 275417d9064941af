// SPDX-License-Identifier: GPL-2.0-or-later
/* tracefs.c - stop ftrace and write markers for breaktrace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "system/tracefs.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL
};

static const char *dir;
static int on_fd = -1;
static int marker_fd = -1;
static int snapshot_fd = -1;	/* tracefs_open_snapshot() */
static int tracer_fd = -1;	/* the top-level tracer's lock */
/* What tracefs_probe() mounted and has not said yet (see tracefs.h). */
static const char *probed_at;

static const char *find_dir(void)
{
	char path[128];
	int i;

	for (i = 0; tracefs_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/tracing_on", tracefs_dirs[i]);
		if (access(path, W_OK) == 0)
			return tracefs_dirs[i];
	}
	return NULL;
}

const char *tracefs_dir(void)
{
	return dir ? dir : find_dir();
}

/* Mounted but not writable (read-only, found by the exhaustion tests)
 * is said as such; otherwise it is not mounted. */
static int tracefs_missing(char *err, size_t len)
{
	char path[128];
	int i;

	for (i = 0; tracefs_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/tracing_on", tracefs_dirs[i]);
		if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
			snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
			return -1;
		}
	}
	snprintf(err, len, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	return -1;
}

/* Why mount(2) failed, as one clause for the user. */
static void mount_failed(int e, char *why, size_t len)
{
	if (e == EPERM || e == EACCES)
		snprintf(why, len, "tracefs is not mounted and only root can mount it (mount -t tracefs nodev /sys/kernel/tracing)");
	else if (e == ENODEV)
		snprintf(why, len, "this kernel has no tracefs (CONFIG_TRACING); --explain and timerlat need it");
	else if (e == EROFS)
		snprintf(why, len, "tracefs is not mounted and /sys is read-only (mount -t tracefs nodev /sys/kernel/tracing)");
	else
		snprintf(why, len, "tracefs is not mounted and mounting it on /sys/kernel/tracing failed: %s",
			 strerror(e));
}

/*
 * Mount tracefs where libtracefs and trace-cmd look first; on a kernel
 * without /sys/kernel/tracing, debugfs (whose tracing directory mounts
 * tracefs by itself when first opened). Left mounted, as those tools do:
 * unmounting would pull it from under another tracer started meanwhile.
 * *at: the mount point, NULL where another process mounted it first.
 */
static const char *mount_tracefs(const char **at, char *why, size_t len)
{
	struct stat st;
	int e;

	*at = NULL;
	if (!mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL)) {
		*at = tracefs_dirs[0];
		goto mounted;
	}
	e = errno;
	if (e == EBUSY && find_dir())	/* another process was quicker */
		return find_dir();
	if (stat(tracefs_dirs[0], &st) == 0 && e != ENODEV) {
		mount_failed(e, why, len);
		return NULL;
	}
	if (mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL)) {
		if (errno != EBUSY) {
			mount_failed(e == ENOENT ? errno : e, why, len);
			return NULL;
		}
	} else {
		*at = "/sys/kernel/debug";
	}
mounted:
	if (!find_dir()) {
		tracefs_missing(why, len);
		return NULL;
	}
	return find_dir();
}

static void say_mounted(const char *prog)
{
	fprintf(stderr, "%s: tracefs was not mounted; mounted it on %s (left mounted, as trace-cmd does)\n",
		prog, find_dir());
}

/* The directory, mounting tracefs where it is not: *at as mount_tracefs. */
static const char *need(const char **at, char *why, size_t len)
{
	const char *d = find_dir();
	char path[128];
	int i;

	*at = NULL;
	if (d)
		return d;
	for (i = 0; tracefs_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/tracing_on", tracefs_dirs[i]);
		if (access(path, F_OK) == 0) {	/* mounted, not writable */
			tracefs_missing(why, len);
			return NULL;
		}
	}
	return mount_tracefs(at, why, len);
}

const char *tracefs_need(const char *prog, char *why, size_t len)
{
	const char *at, *d = need(&at, why, len);

	if (at)
		say_mounted(prog);
	return d;
}

const char *tracefs_probe(char *why, size_t len)
{
	const char *at, *d = need(&at, why, len);

	if (at)
		probed_at = at;
	return d;
}

void tracefs_probe_end(const char *prog, bool keep)
{
	if (!probed_at)
		return;
	if (keep)
		say_mounted(prog);
	else
		umount2(probed_at, MNT_DETACH);
	probed_at = NULL;
}

int tracefs_open(const char *prog, char *err, size_t len)
{
	char path[128];

	if (on_fd >= 0)
		return 0;
	dir = tracefs_need(prog, err, len);
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/tracing_on", dir);
	on_fd = open(path, O_WRONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/trace_marker", dir);
	marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (on_fd < 0 || marker_fd < 0) {
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		tracefs_close();
		return -1;
	}
	return 0;
}

/*
 * The snapshot buffer (CONFIG_TRACER_SNAPSHOT), allocated now so that
 * taking one later allocates nothing: "1" allocates and swaps, "2" then
 * clears it and keeps it. Returns 0, or -1 where the kernel has none.
 */
int tracefs_open_snapshot(void)
{
	char path[128];
	int fd;

	if (snapshot_fd >= 0)
		return 0;
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/snapshot", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, "1", 1) != 1 || lseek(fd, 0, SEEK_SET) < 0 ||
	    write(fd, "2", 1) != 1) {
		close(fd);
		return -1;
	}
	snapshot_fd = fd;
	return 0;
}

bool tracefs_snapshot(const char *msg)
{
	if (snapshot_fd < 0)
		return false;
	tracefs_mark(msg);
	return write(snapshot_fd, "1", 1) == 1;
}

bool tracefs_is_open(void)
{
	return on_fd >= 0;
}

void tracefs_mark(const char *msg)
{
	if (marker_fd >= 0 && write(marker_fd, msg, strlen(msg)) < 0)
		return;
}

void tracefs_break(const char *msg)
{
	tracefs_mark(msg);
	if (on_fd >= 0 && write(on_fd, "0", 1) < 0)
		return;
}

bool tracefs_has_tracer(const char *name)
{
	char path[128], buf[4096];
	const char *d = tracefs_dir();
	char *tok, *save;
	size_t n;
	FILE *f;

	if (!d)
		return false;
	snprintf(path, sizeof(path), "%s/available_tracers", d);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

int tracefs_write(const char *d, const char *file, const char *val)
{
	char path[320];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", d, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

void tracefs_read(const char *d, const char *file, char *buf, size_t len)
{
	char path[320];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", d, file);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

void tracefs_read_choice(const char *d, const char *file, char *buf, size_t len)
{
	char all[256], *open, *close;

	tracefs_read(d, file, all, sizeof(all));
	open = strchr(all, '[');
	close = open ? strchr(open, ']') : NULL;
	buf[0] = '\0';
	if (close)
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
}

int tracefs_lock_tracer(const char *d)
{
	int fd, e;

	if (tracer_fd >= 0)
		return 0;
	fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		close(fd);
		return -e;
	}
	tracer_fd = fd;
	return 0;
}

void tracefs_unlock_tracer(void)
{
	if (tracer_fd >= 0)
		close(tracer_fd);
	tracer_fd = -1;
}

void tracefs_close(void)
{
	tracefs_unlock_tracer();
	if (on_fd >= 0)
		close(on_fd);
	if (marker_fd >= 0)
		close(marker_fd);
	if (snapshot_fd >= 0)
		close(snapshot_fd);
	on_fd = marker_fd = snapshot_fd = -1;
}
