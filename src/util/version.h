/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAT_VERSION_H
#define RTLAT_VERSION_H
#define RTLAT_VERSION "0.1.0"
/* The release's date: the man pages' (a fixed one, so builds repeat). */
#define RTLAT_DATE "2026-11-25"
#endif
