/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_spawn.h - the process that forks the request test's server,
 * clients and load processes (request_spawn.c).
 */
#ifndef RTLAT_REQUEST_SPAWN_H
#define RTLAT_REQUEST_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>
#include "request/request_types.h"

enum req_child_kind { REQ_CHILD_SERVER, REQ_CHILD_CLIENT, REQ_CHILD_LOAD };

/* At setup, before the run has a thread: fork the spawner. 0 or -errno. */
int req_spawner_start(struct req_run *run);
/* A process of kind (index: the client's or load's), fd the client's
 * connection (-1: none): its pid, or -errno. */
pid_t req_spawn(struct req_run *run, enum req_child_kind kind, int index, int fd);
/* Whether pid (one req_spawn made) has ended, with its wait status;
 * block: wait for it (false only when the spawner is gone). */
bool req_spawned_ended(struct req_run *run, pid_t pid, int *status, bool block);
/* The spawner ended before the run did (it forks nothing any more). */
bool req_spawner_lost(const struct req_run *run);
/* After every process it made has ended: end and reap the spawner. */
void req_spawner_stop(struct req_run *run);

#endif
