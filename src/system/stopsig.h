/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stopsig.h - the signals that end a run (SIGINT, SIGTERM, SIGHUP), routed
 * to one handler the same way in every subcommand.
 */
#ifndef RTLAT_STOPSIG_H
#define RTLAT_STOPSIG_H

#include <sys/types.h>

/*
 * Install handler for SIGINT, SIGTERM and SIGHUP, without SA_RESTART:
 * a blocking call then returns EINTR and the caller sees its stop flag.
 * A stop signal caught before this call (a constructor catches them from
 * before main) is handed to handler at once. handler may be NULL: the
 * signal is then only noted (stopsig_last) and forwarded.
 */
void stopsig_install(void (*handler)(int));
/* The last stop signal taken after stopsig_install (0: none). */
int stopsig_last(void);
/* A stop signal taken from now on is also sent to pid (a child that
 * ends the same way: rtlat suite's test); 0: to none. */
void stopsig_forward(pid_t pid);
/* A stop signal that came before stopsig_install (0: none); it is also
 * passed to the handler when that is installed. */
int stopsig_early_signal(void);
/* How many stop signals the handler of stopsig_install has taken: a
 * wait outside the run (outfile.c's FIFO) ends when it changes. */
unsigned int stopsig_count(void);
/* The same for one more signal (a "kick" that only interrupts). */
void stopsig_catch(int sig, void (*handler)(int));

#endif
