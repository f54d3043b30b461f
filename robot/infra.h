/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_INFRA_H
#define ROBOT_INFRA_H

/*
 * The robot's one infrastructure policy (robot run, the nightly, the
 * bisection): a build hook, boot hook or payload run that fails for the
 * infrastructure (any exit but 0 and 125, a signal, a timeout, a transport
 * error) is retried on the same host after a pause of 2, 4, 8, 16, then 30
 * s, so a box that reboots or a lab network that hiccups gets a minute to
 * come back; after INFRA_MAX_FAILURES in a row the robot gives up (what it
 * measured stays stored, a bisection stays resumable). Exit 125 of a
 * build or boot hook is a skip (the commit cannot be tested), a payload
 * that runs and fails is a failed run: neither is retried, and neither
 * is ever an infrastructure failure.
 */
#define INFRA_MAX_FAILURES 6

/* The pause in seconds after the n-th failure in a row (n >= 1). */
static inline double infra_pause(int n)
{
	return n >= 5 ? 30.0 : (double)(2 << (n - 1));
}

#endif
