/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_LAVA_EXEC_H
#define ROBOT_LAVA_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job;
struct lab;
struct lab_host;
struct measure;
struct measure_result;
struct sbuf;
struct statset;
struct store;

/*
 * LAVA slots behind the one measure path: a host of `transport: lava` is
 * one device of the lab's lava: pool at a time. measure_once hands it the
 * boot and the run of a built commit (lava_measure):
 *
 *   batch   one LAVA job boots the commit's kernel with the box's initrd
 *           plus a small cpio of the batch (/etc/rc.box runs the payload
 *           runs_per_job times between "robot-run: begin N" and
 *           "robot-run: end N status RC" lines on the console, then
 *           "robot-run: done"); its row in the store (lava_jobs) is
 *           written before the submit and gets the server's id before
 *           the robot waits on it
 *   wait    the job is polled until it is Finished; a server that does
 *           not answer is waited for (up to the lab's job_timeout), a
 *           stop request leaves the job to a later robot, which finds it
 *           in the store and waits on it again (never a second submit)
 *   verdict Complete: the console is kept in WORKDIR/lava/<id>.console
 *           and each run of the commit on the host takes the next output
 *           of the batch (runner_record: the same parse, files and store
 *           rows as an ssh run); the outputs spent, the next run submits
 *           another batch. Incomplete with a kernel that panicked or
 *           never reached the box's userland (error_type Job, Test or
 *           LAVATimeout) is a skip (exit 125's meaning); anything else
 *           (Infrastructure, Bug, Configuration, Canceled, a refused
 *           submit) is an infrastructure failure, never a verdict.
 *
 * A batch's leftover outputs stay for later runs of the same commit on
 * the same slot (a resumed bisection uses them).
 */
struct lava_slot;

/* Boot and run commit on m's LAVA slot (measure.h's stages BOOT, RUN). */
int lava_measure(struct measure *m, const char *commit,
		 struct measure_result *res, struct statset *stats,
		 struct sbuf *why);
void lava_slot_free(struct lava_slot *s);

/*
 * Can a slot's box run the (resolved) job? -1 with one line when its
 * setup needs what a batch cannot give (an unprivileged user, a disk).
 */
int lava_check_job(const struct job *job, const struct lab_host *host);

/*
 * The pieces of a batch (exposed to tests). lava_batch_script: the box's
 * /etc/rc.box for runs runs of the (resolved) job, between marker lines,
 * every word of the payload quoted for the shell; cmdline gets the
 * reproduce instructions; -1 with a message when the box cannot give the
 * job its setup. lava_batch_cpio: the newc archive of the batch's files
 * (rc.box, inittab, profile), appended to the box's initrd.
 * lava_run_output: run n's lines of a console and its exit status
 * (false when the console has no whole output of run n).
 */
int lava_batch_script(const struct job *job, const struct lab_host *host,
		      long runs, struct sbuf *sb, struct sbuf *cmdline);
void lava_batch_cpio(const char *script, struct sbuf *sb);
bool lava_run_output(const char *console, int n, struct sbuf *text, int *rc);

/*
 * WORKDIR/artifacts/lava/initrd-<hash>.cpio: the lab's initrd with the
 * batch's cpio of script appended (named by both, so every commit's batch
 * of one job shares it), its path in *out. One there is touched and
 * reused; writing one trims the others (lava_trim_initrds, the cut-off
 * from store's LAVA jobs still waited on). Slots' threads may ask for the
 * same one at once, each with its own store. 0 or -1.
 */
int lava_batch_initrd(const struct lab *lab, struct store *store,
		      const char *script, char **out);

/*
 * WORKDIR/artifacts/lava/ holds one initrd per batch script (a job's runs
 * on a slot type) and version of the lab's initrd: a copy of it each.
 * Writing a new one removes every other initrd (and a killed robot's
 * half-written .tmp.<pid>) last used before `before` (the file's mtime:
 * a batch that reuses one touches it), except keep. How many went, or -1.
 * The robot passes a day ago, or the submit time of the oldest LAVA job
 * still waited on if earlier (its worker may not have fetched it yet).
 */
int lava_trim_initrds(const char *dir, const char *keep, double before);

/*
 * Cancel the LAVA jobs of a bisection (0: all of the store) that are
 * still queued or running, and mark them canceled with the message why;
 * *n how many. 0 or -1.
 */
int lava_cancel_waiting(const struct lab *lab, struct store *st,
			int64_t bisection_id, const char *why, size_t *n);

#endif
