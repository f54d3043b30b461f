// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIGINT and SIGTERM during a long command (cli.h, rb_interrupt_start).
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "../robot.h"
#include "../proc.h"
#include "cli.h"

static struct {
	char *workdir;
	bool tty;
	void (*on_stop)(void *arg, const char *why);
	void *arg;
	pthread_t th;
} it;

static void *wait_signal(void *unused)
{
	sigset_t set;
	unsigned stopped = 0;
	int sig = 0;
	char why[64];

	(void)unused;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigwait(&set, &sig))
		return NULL;
	rb_stop_request();
	snprintf(why, sizeof(why), "interrupted by %s",
		 sig == SIGINT ? "SIGINT" : "SIGTERM");
	if (it.on_stop)
		it.on_stop(it.arg, why);
	/* the hooks and payloads go now, not when the next robot starts */
	if (proc_reap_workdir(it.workdir, &stopped) < 0)
		rb_error_print();
	if (it.tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "robot: %s; run the same command to resume\n", why);
	fflush(stderr);
	fflush(stdout);
	_exit(128 + sig);
}

int rb_interrupt_start(const char *workdir, bool tty,
		       void (*on_stop)(void *arg, const char *why), void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* blocked here and in every thread started from now on */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return rb_error("cannot block SIGINT and SIGTERM");
	it.workdir = xstrdup(workdir);
	it.tty = tty;
	it.on_stop = on_stop;
	it.arg = arg;
	if (pthread_create(&it.th, NULL, wait_signal, NULL))
		return rb_error("cannot start the signal thread");
	pthread_detach(it.th);
	return 0;
}
