// SPDX-License-Identifier: GPL-2.0-or-later
/* request.c - placeholder until the request subcommand lands. */
#include <stdio.h>
#include "subcommands.h"

int request_main(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "%s: not implemented yet\n", argv[0]);
	return 1;
}
