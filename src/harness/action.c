// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * action.c - --on-threshold (see action.h): the option read, and the
 * run's action thread that takes the measuring threads' notes (record.h)
 * and acts on them, off the measuring path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "measure/clock.h"
#include "measure/record.h"
#include "system/tracefs.h"
#include "harness/action.h"
#include "harness/test.h"

/* The CPUs a rate is kept for; a higher one (or none: -1) shares slot 0. */
#define ACTION_CPUS	1024
/* The figures a command gets (exec_env), each at most this long. */
#define ACTION_VARS	9
#define ACTION_VAR_LEN	(PATH_MAX + 32)

struct action_child {
	pid_t pid;
	int64_t start;
	bool said;		/* its hang said */
};

struct action {
	struct test_run *t;
	struct action_spec spec;
	pthread_t thread;
	atomic_int stop;	/* action_stop writes, the thread reads */
	char dir[PATH_MAX];	/* RTLAT_RUN_DIR */
	unsigned long traces;	/* trace files written */
	struct action_child kids[ACTION_MAX_CHILDREN];
	int64_t last[ACTION_CPUS + 1];	/* the last action per CPU, ns */
	char vars[ACTION_VARS][ACTION_VAR_LEN];	/* a command's figures */
};

/* --- the option -------------------------------------------------- */

static const struct { const char *name; int sig; } sig_names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
	{ "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "CONT", SIGCONT },
	{ "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "WINCH", SIGWINCH },
};

/* "USR1", "SIGUSR1" or a number: the signal, or 0. */
static int parse_signal(const char *s)
{
	long long n;
	size_t i;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++)
		if (!strcmp(s, sig_names[i].name))
			return sig_names[i].sig;
	if (!parse_ll(s, &n) && n >= 1 && n < NSIG)
		return (int)n;
	return 0;
}

/* One word of the list (exec= taken whole before): NULL, or why not. */
static const char *parse_word(struct action_spec *sp, const char *w)
{
	long long pid;

	if (!strncmp(w, "signal=", 7)) {
		if (sp->sig)
			return "names signal= twice";
		sp->sig = parse_signal(w + 7);
		return sp->sig ? NULL : "has an unknown signal";
	}
	if (!strncmp(w, "pid=", 4)) {
		if (!sp->sig || sp->pid)
			return "has pid= not right after signal=";
		if (!strcmp(w + 4, "parent"))
			return NULL;
		if (parse_ll(w + 4, &pid) || pid < 1 || pid > INT_MAX)
			return "has a pid that is not a process number";
		sp->pid = (pid_t)pid;
		return NULL;
	}
	if (!strcmp(w, "trace") && !sp->trace)
		return (sp->trace = true), NULL;
	if (!strcmp(w, "stop") && !sp->stop)
		return (sp->stop = true), NULL;
	if (!strcmp(w, "continue") && !sp->cont)
		return (sp->cont = true), NULL;
	return "has an action that is not exec=CMD, signal=SIG[,pid=PID|parent], trace, stop or continue, or one twice";
}

static const char *parse_spec(struct action_spec *sp, char *buf)
{
	char *w = buf, *next;
	const char *bad = NULL;

	while (w && !bad) {
		if (!strncmp(w, "exec=", 5)) {
			sp->exec = w + 5;
			return *sp->exec ? NULL : "has exec= without a command";
		}
		next = strchr(w, ',');
		if (next)
			*next++ = '\0';
		bad = parse_word(sp, w);
		w = next;
	}
	if (!bad && sp->stop && sp->cont)
		bad = "says both stop and continue";
	return bad;
}

int action_check(struct test_run *t, struct action_spec *sp)
{
	const struct test_common *c = t->common;
	const struct opt *o = opts_find(t->opts, 0, "on-threshold");
	const char *bad;

	memset(sp, 0, sizeof(*sp));
	if (!c->on_threshold)
		return 0;
	sp->buf = strdup(c->on_threshold);
	bad = sp->buf ? parse_spec(sp, sp->buf) : strerror(ENOMEM);
	if (!bad && !c->fleet.max_latency)
		bad = "needs --max-latency (the threshold it acts at)";
	if (!bad && !c->largest && !c->timeline_s)
		bad = "needs the run's record (--largest or --timeline not 0)";
	if (!bad)
		return 0;
	opts_error(t->prog, o, "%s; accepted: exec=CMD (last), signal=SIG[,pid=PID|parent], trace, stop, continue, comma-separated, with --max-latency",
		   bad);
	action_spec_free(sp);
	return -1;
}

void action_spec_free(struct action_spec *sp)
{
	free(sp->buf);
	memset(sp, 0, sizeof(*sp));
}

/* --- the action thread ------------------------------------------- */

static void say(const struct action *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct action *a, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: --on-threshold: %s\n", a->t->prog, line);
}

/* The command as a line may show it. */
static const char *cmd_text(const struct action *a, char *buf, size_t len)
{
	return opts_quote(buf, len, a->spec.exec, strlen(a->spec.exec));
}

/* The environment of a command: rtlat's (without RTLAT_*), then the
 * figures, formatted into a->vars. NULL: no memory. */
static char **exec_env(struct action *a, const struct rec_entry *e,
		       int64_t v, int64_t at)
{
	double t_s = (double)(at - a->t->rec->origin) / NSEC_PER_SEC;
	size_t n = 0, i;
	char **env;
	int k = 0;

	while (environ && environ[n])
		n++;
	env = calloc(n + ACTION_VARS + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "RTLAT_", 6) != 0)
			env[k++] = environ[i];
	snprintf(a->vars[0], ACTION_VAR_LEN, "RTLAT_TEST=%s", e->test);
	snprintf(a->vars[1], ACTION_VAR_LEN, "RTLAT_SERIES=%s", e->series);
	snprintf(a->vars[2], ACTION_VAR_LEN, "RTLAT_THREAD=%d", e->thread);
	snprintf(a->vars[3], ACTION_VAR_LEN, "RTLAT_CPU=%d", e->cpu);
	snprintf(a->vars[4], ACTION_VAR_LEN, "RTLAT_LATENCY_NS=%lld", (long long)v);
	snprintf(a->vars[5], ACTION_VAR_LEN, "RTLAT_THRESHOLD_NS=%lld",
		 (long long)e->threshold);
	snprintf(a->vars[6], ACTION_VAR_LEN, "RTLAT_TIME_S=%.6f", t_s > 0 ? t_s : 0);
	snprintf(a->vars[7], ACTION_VAR_LEN, "RTLAT_RUN_DIR=%s", a->dir);
	snprintf(a->vars[8], ACTION_VAR_LEN, "RTLAT_PID=%d", (int)getpid());
	for (i = 0; i < ACTION_VARS; i++)
		env[k++] = a->vars[i];
	return env;
}

/* A free slot for a command; -1: every one is taken. */
static int free_slot(const struct action *a)
{
	int i;

	for (i = 0; i < ACTION_MAX_CHILDREN; i++)
		if (!a->kids[i].pid)
			return i;
	return -1;
}

/*
 * sh -c CMD in a process group of its own (so that what it starts can
 * be killed with it), with the default signal mask and handlers (rtlat
 * blocks SIGUSR1 and the stop signals in its threads), stdin from
 * /dev/null and stdout to rtlat's stderr (rtlat's stdout is its
 * results). posix_spawn, not fork: no copy-on-write of the measuring
 * threads' memory while they run.
 */
static void run_exec(struct action *a, const struct rec_entry *e, int64_t v,
		     int64_t at)
{
	char *argv[] = { "sh", "-c", (char *)a->spec.exec, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	sigset_t none, all;
	char **env, cmd[80];
	int slot = free_slot(a), err;
	pid_t pid;

	if (slot < 0) {
		say(a, "exec %s: %d commands still running; this one not started",
		    cmd_text(a, cmd, sizeof(cmd)), ACTION_MAX_CHILDREN);
		return;
	}
	env = exec_env(a, e, v, at);
	if (!env) {
		say(a, "exec: %s", strerror(ENOMEM));
		return;
	}
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&sa, 0);
	posix_spawnattr_setsigmask(&sa, &none);
	posix_spawnattr_setsigdefault(&sa, &all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	err = posix_spawn(&pid, "/bin/sh", &fa, &sa, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&sa);
	free(env);
	if (err) {
		say(a, "exec %s: %s", cmd_text(a, cmd, sizeof(cmd)), strerror(err));
		return;
	}
	a->kids[slot].pid = pid;
	a->kids[slot].start = clock_now_ns();
	a->kids[slot].said = false;
}

/* A command that ended: what it left running in its group goes too (the
 * group still exists while its leader is unreaped), then it is reaped;
 * a failure is said. */
static void reap(struct action *a, struct action_child *k, int st, bool at_end)
{
	char cmd[80];

	kill(-k->pid, SIGKILL);
	waitpid(k->pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st))
		say(a, "exec %s exited %d", cmd_text(a, cmd, sizeof(cmd)),
		    WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && !at_end)
		say(a, "exec %s ended by signal %d", cmd_text(a, cmd, sizeof(cmd)),
		    WTERMSIG(st));
	k->pid = 0;
}

/* The commands that ended, reaped; one running past ACTION_HANG_S said
 * once (not waited for: the run goes on). */
static void watch_children(struct action *a, int64_t now)
{
	siginfo_t si;
	char cmd[80];
	int i;

	for (i = 0; i < ACTION_MAX_CHILDREN; i++) {
		struct action_child *k = &a->kids[i];

		if (!k->pid)
			continue;
		memset(&si, 0, sizeof(si));
		/* WNOWAIT: looked at, left a zombie until reap() has killed
		 * its group. */
		if (!waitid(P_PID, (id_t)k->pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == k->pid) {
			reap(a, k, 0, false);
			continue;
		}
		if (!k->said && now - k->start >= ACTION_HANG_S * NSEC_PER_SEC) {
			k->said = true;
			say(a, "exec %s still running after %d s; not waited for (killed at the end of the run)",
			    cmd_text(a, cmd, sizeof(cmd)), ACTION_HANG_S);
		}
	}
}

static void do_signal(struct action *a)
{
	pid_t pid = a->spec.pid ? a->spec.pid : getppid();

	if (kill(pid, a->spec.sig))
		say(a, "signal %d to %d: %s", a->spec.sig, (int)pid, strerror(errno));
}

/* The kernel's trace buffer as text (tracefs "trace": read, not
 * consumed; tracing goes on) into DIR/rtlat-trace-PID-N.txt. */
static void do_trace(struct action *a)
{
	const char *d = tracefs_dir();
	char src[PATH_MAX], dst[PATH_MAX + 64], buf[65536];
	int in = -1, out = -1;
	ssize_t n = 0;

	snprintf(dst, sizeof(dst), "%s/rtlat-trace-%d-%lu.txt", a->dir,
		 (int)getpid(), ++a->traces);
	if (!d) {
		say(a, "trace: no tracefs mounted; nothing saved");
		return;
	}
	snprintf(src, sizeof(src), "%s/trace", d);
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in < 0 || out < 0 || n < 0 || close(out)) {
		say(a, "trace: %s: %s", in < 0 ? src : dst, strerror(errno));
		if (out >= 0)
			unlink(dst);
	} else {
		say(a, "trace saved to %s", dst);
	}
	if (in >= 0)
		close(in);
}

/* One sample over the threshold, past the rate limit: the actions. */
static void act(struct action *a, const struct rec_entry *e, int64_t v, int64_t at)
{
	double t_s = (double)(at - a->t->rec->origin) / NSEC_PER_SEC;
	char thr[24] = "";

	if (e->thread >= 0)
		snprintf(thr, sizeof(thr), " thread %d", e->thread);
	say(a, "%s %s%s (CPU %d) %.1f us > %.1f us at %.3f s", e->test, e->series,
	    thr, e->cpu, (double)v / NSEC_PER_USEC,
	    (double)e->threshold / NSEC_PER_USEC, t_s > 0 ? t_s : 0);
	if (a->spec.exec)
		run_exec(a, e, v, at);
	if (a->spec.sig)
		do_signal(a);
	if (a->spec.trace)
		do_trace(a);
	/* A process-directed signal: the thread that takes it (the stop
	 * handler's, or the test's sigwait) ends the run as on SIGTERM. */
	if (a->spec.stop)
		kill(getpid(), SIGTERM);
}

/* Every series' note since the last poll, at most one action per CPU
 * per second (a note in that second is dropped). */
static void poll_notes(struct action *a, int64_t now)
{
	struct recorder *rec = a->t->rec;
	int i, n;

	/* Entries are only added (at setup), never moved before
	 * record_free: acting on them needs no lock held (a trace copied
	 * under it would hold up the recorder and a checkpoint). */
	pthread_mutex_lock(&rec->lock);
	n = rec->n;
	pthread_mutex_unlock(&rec->lock);
	for (i = 0; i < n; i++) {
		struct rec_entry *e = rec->e[i];
		int slot = e->cpu >= 0 && e->cpu < ACTION_CPUS ? e->cpu + 1 : 0;
		int64_t at, v = record_alarm_take(e->r, &at);

		if (!v || (a->last[slot] && now - a->last[slot] < NSEC_PER_SEC))
			continue;
		a->last[slot] = now;
		act(a, e, v, at);
	}
}

static void *action_main(void *arg)
{
	struct action *a = arg;
	struct timespec ts = { 0, ACTION_POLL_MS * NSEC_PER_MSEC };
	bool last = false;
	sigset_t all;

	/* Every signal to the process is another thread's to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	prctl(PR_SET_NAME, "rtlat-action");
	while (!last) {
		last = atomic_load_explicit(&a->stop, memory_order_acquire);
		poll_notes(a, clock_now_ns());
		watch_children(a, clock_now_ns());
		if (!last)
			nanosleep(&ts, NULL);
	}
	return NULL;
}

/* RTLAT_RUN_DIR and the trace files': the --json file's directory, else
 * the working directory; absolute. */
static void run_dir(struct action *a)
{
	const char *json = a->t->common->json, *slash;
	char d[PATH_MAX];

	snprintf(d, sizeof(d), ".");
	slash = json && strcmp(json, "-") != 0 ? strrchr(json, '/') : NULL;
	if (slash)
		snprintf(d, sizeof(d), "%.*s", (int)(slash - json + (slash == json)), json);
	if (!realpath(d, a->dir))
		snprintf(a->dir, sizeof(a->dir), "%s", d);
}

struct action *action_start(struct test_run *t, const struct action_spec *spec)
{
	struct action *a;
	pthread_attr_t attr;
	int err;

	if (!spec->buf)
		return NULL;
	/* --largest 0 with the time line off by default (decided after the
	 * options were checked), or no memory for the record. */
	if (!t->rec) {
		fprintf(stderr, "%s: --on-threshold: the run keeps no record (--largest 0, --timeline off): no actions\n",
			t->prog);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		fprintf(stderr, "%s: --on-threshold: %s; going on without it\n",
			t->prog, strerror(ENOMEM));
		return NULL;
	}
	a->t = t;
	a->spec = *spec;
	run_dir(a);
	/* Not real-time, whatever the main thread is by then: a
	 * non-measuring thread, and the commands it starts inherit it. */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	err = pthread_create(&a->thread, &attr, action_main, a);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "%s: --on-threshold: cannot start its thread: %s; going on without it\n",
			t->prog, strerror(err));
		free(a);
		return NULL;
	}
	return a;
}

/* The commands still running at the end: ACTION_END_GRACE_MS to finish,
 * then their groups killed and reaped, each said. */
static void end_children(struct action *a)
{
	int64_t until = clock_now_ns() + ACTION_END_GRACE_MS * NSEC_PER_MSEC;
	struct timespec ts = { 0, 20 * NSEC_PER_MSEC };
	char cmd[80];
	int i, left;

	do {
		watch_children(a, clock_now_ns());
		for (i = 0, left = 0; i < ACTION_MAX_CHILDREN; i++)
			left += a->kids[i].pid != 0;
		if (left)
			nanosleep(&ts, NULL);
	} while (left && clock_now_ns() < until);
	for (i = 0; i < ACTION_MAX_CHILDREN; i++) {
		if (!a->kids[i].pid)
			continue;
		say(a, "exec %s still running at the end of the run: killed",
		    cmd_text(a, cmd, sizeof(cmd)));
		reap(a, &a->kids[i], 0, true);
	}
}

void action_stop(struct action *a)
{
	if (!a)
		return;
	atomic_store_explicit(&a->stop, 1, memory_order_release);
	pthread_join(a->thread, NULL);
	end_children(a);
	free(a);
}
