/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manpage.h - "rtlat --man NAME" and "rtlat --completion" (manpage.c, completion.c). */
#ifndef RTLAT_MANPAGE_H
#define RTLAT_MANPAGE_H

#include <stdio.h>

/* argv[1] is --man or --completion: write the page or script to stdout;
 * the exit status. */
int manpage_main(int argc, char **argv);
/* The bash completion script (completion.c). */
void completion_write(FILE *f);

#endif
