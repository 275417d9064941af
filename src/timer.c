// SPDX-License-Identifier: GPL-2.0-or-later
/* timer.c - placeholder until the timer subcommand lands. */
#include <stdio.h>
#include "subcommands.h"

int timer_main(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: not implemented yet\n", argv[0]);
	return 1;
}
