/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefs.h - breaktrace: stop ftrace and leave a marker. */
#ifndef RTLAT_TRACEFS_H
#define RTLAT_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

/* The writable tracefs directory; where tracefs is not mounted, mount it
 * (root only) and say so on stderr once. NULL with the reason in why
 * (not root, no tracefs in the kernel, read-only). Call before the run. */
const char *tracefs_need(const char *prog, char *why, size_t len);
/* tracefs_need for the checks of the options: a mount is not said yet.
 * tracefs_probe_end() then says it (keep: the run goes on) or undoes it
 * (bad input leaves nothing behind and says one line). */
const char *tracefs_probe(char *why, size_t len);
void tracefs_probe_end(const char *prog, bool keep);
/* tracefs_need, then open tracing_on and trace_marker. Returns 0, or -1
 * with one line in err. Call before the run. */
int tracefs_open(const char *prog, char *err, size_t len);
bool tracefs_is_open(void);
/* After tracefs_open: the snapshot buffer, allocated; -1 without one. */
int tracefs_open_snapshot(void);
/* Mark, then swap the live trace into the snapshot buffer (tracing goes
 * on): false without one (tracefs_open_snapshot failed or not called). */
bool tracefs_snapshot(const char *msg);
/* Write msg to trace_marker, then 0 to tracing_on. No allocation. */
void tracefs_break(const char *msg);
/* Write a marker only. */
void tracefs_mark(const char *msg);
/* True if available_tracers lists name (e.g. "timerlat"). */
bool tracefs_has_tracer(const char *name);
/* The tracefs directory in use, or NULL (never mounts). */
const char *tracefs_dir(void);
/* Write val to d/file (a tracefs control file): 0 or -errno. */
int tracefs_write(const char *d, const char *file, const char *val);
/* The first line of d/file, without its newline, into buf ("" where it
 * cannot be read). */
void tracefs_read(const char *d, const char *file, char *buf, size_t len);
/* The choice in use of a file that lists them with it in brackets
 * ("none [round-robin] per-cpu" -> "round-robin"); "" where none. */
void tracefs_read_choice(const char *d, const char *file, char *buf, size_t len);
/*
 * The top-level tracer (current_tracer, osnoise/) is one per machine:
 * taken with flock() on the tracefs directory d, so that a second rtlat
 * is refused; the kernel drops it when the process ends, however it ends.
 * 0, or -errno (-EWOULDBLOCK: another process holds it).
 */
int tracefs_lock_tracer(const char *d);
void tracefs_unlock_tracer(void);
/* Closes the files and drops the tracer's lock. */
void tracefs_close(void);

#endif
