# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line: options, subcommands, the man page. The top layer:
it may use every other, none uses it."""
