/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_NIGHTLY_H
#define ROBOT_NIGHTLY_H

#include <stdbool.h>
#include <stdio.h>

/*
 * The nightly loop (`robot nightly`): unattended tracking of the lab
 * tree's branch. One cycle:
 *
 *   fetch      tree.url's tree.branch into tree.path, as
 *              refs/remotes/<tree.name>/<branch> (fetch.c); without a url,
 *              refs/heads/<branch> of tree.path as it is. A head tested
 *              before ends the cycle there: nothing new.
 *   jobs       the atomic jobs of nightly.jobs (files or globs, k=v
 *              params), each with its metric, threshold and hosts; they
 *              are fixed in the store when the cycle starts.
 *   measure    per job, on its first host: the head adaptively, the
 *              baseline (the previous tested head, or the latest v* tag
 *              reachable from the head) from its stored runs or measured,
 *              until regression detection decides (nightly-plan.c); every
 *              stat's summary at the head goes into the history.
 *   act        a regression is bisected from the baseline to the head on
 *              the job's hosts (session.c), its culprit mailed (report
 *              drafted, sent when the lab auto-sends); an improvement the
 *              same way with an improvement mail (nightly.improvements).
 *              A regression already explained by a reported culprit in
 *              the range is not bisected again: it is that culprit's
 *              [still regression].
 *   still      every open regression this job reported earlier whose
 *              culprit the head contains is checked against the head:
 *              still there (recorded with the report, and a follow-up
 *              mail when nightly.still_mail), or gone.
 *
 * Crash safety: the cycle and each job's state are in the store
 * (nightly-store.c), and every step is idempotent: runs are stored before
 * they count, the bisection resumes by its key, the outbox never drafts
 * or sends a mail twice. Running again continues the unfinished cycle
 * first, then fetches.
 *
 * One line per event goes to stderr and, with the time, to
 * WORKDIR/nightly.log; each cycle ends with a summary on `out`.
 */
struct nightly_opts {
	const char *lab; /* the lab file */
	bool once; /* one cycle, then exit */
	long interval; /* seconds between cycles; 0: the lab's */
	FILE *out; /* summaries */
	bool tty; /* stderr is a terminal: progress lines */
};

/* Run; returns the exit status (0, or 1 when the robot itself failed). */
int nightly_main(const struct nightly_opts *o);

#endif
