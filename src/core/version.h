/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAT_VERSION_H
#define RTLAT_VERSION_H
#define RTLAT_VERSION "0.1.0"
#endif
