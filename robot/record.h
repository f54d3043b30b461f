/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_RECORD_H
#define ROBOT_RECORD_H

#include <stddef.h>
#include <stdint.h>

/*
 * What a bisection records, as the session reads it back: its steps (the
 * decisions, in order) and the samples of its runs. The store keeps them
 * in SQLite (store.h); tests and the simulation keep them in memory.
 */

struct bisection_step_rec {
	int64_t id;
	char *kind, *commit, *host, *verdict, *detail;
	double time;
};
void bisection_steps_free(struct bisection_step_rec *v, size_t n);
/*
 * An integer member of a step's detail, as the session writes it
 * ({..., "key": 123, ...}): what follows the first `"key": `. Returns
 * dflt when detail is NULL or has no such member. The session is pure and
 * reads the few integers it needs back this way; readers that need more
 * of a detail parse it as JSON (bisection.c).
 */
int64_t record_detail_int(const char *detail, const char *key, int64_t dflt);

/* One sample of a bisection: which run, on which host. */
struct run_sample {
	int64_t run_id;
	char *host;
	double value;
};
void run_samples_free(struct run_sample *v, size_t n);

#endif
