/* SPDX-License-Identifier: GPL-2.0-or-later */
/* subcommands.h - entry points of rtlat's subcommands. */
#ifndef RTLAT_SUBCOMMANDS_H
#define RTLAT_SUBCOMMANDS_H

/* argv[0] is the subcommand (or compatible) name; return the exit status. */
int pmq_main(int argc, char **argv);
int sigwait_main(int argc, char **argv);
int svsem_main(int argc, char **argv);
int ptsem_main(int argc, char **argv);
int timer_main(int argc, char **argv);
int request_main(int argc, char **argv);
int suite_main(int argc, char **argv);

#endif
