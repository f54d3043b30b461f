// SPDX-License-Identifier: GPL-2.0-only
/* The table of payloads (payload.h). */
#include "robot.h"
#include "job.h"
#include "monitor.h"
#include "payload.h"
#include "sbuf.h"
#include "svec.h"

static const struct payload_ops *const payloads[] = {
	&payload_stressng,
};

const struct payload_ops *payload_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		return payloads[0];
	for (i = 0; i < RB_ARRAY_SIZE(payloads); i++)
		if (!strcmp(payloads[i]->name, name))
			return payloads[i];
	rb_error("payload '%s' is not supported (only stress-ng)", name);
	return NULL;
}

/* The family (prefix) of names metric belongs to, or NULL. */
static const char *family_of(const struct svec *families, const char *metric)
{
	size_t i;

	for (i = 0; i < families->nr; i++)
		if (rb_starts_with(metric, families->v[i]) &&
		    metric[strlen(families->v[i])])
			return families->v[i];
	return NULL;
}

static bool seen_in(const struct svec *seen, const char *family)
{
	size_t i;

	for (i = 0; i < seen->nr; i++)
		if (rb_starts_with(seen->v[i], family))
			return true;
	return false;
}

static int unknown(const char *metric, const struct svec *cands,
		   const char *why)
{
	const char *hint =
		rb_suggest(metric, (const char *const *)cands->v, cands->nr);

	if (hint)
		return rb_error("unknown metric '%s' (did you mean '%s'?)",
				metric, hint);
	return rb_error("unknown metric '%s': %s", metric, why);
}

int payload_metric_check(const struct job *job, const char *metric,
			 const struct svec *seen)
{
	const struct payload_ops *p = payload_find(job->payload);
	struct svec known = SVEC_INIT, fam = SVEC_INIT, cands = SVEC_INIT;
	struct sbuf why = SBUF_INIT;
	const char *family;
	size_t i;
	int ret;

	if (!p)
		return -1;
	if (svec_find(seen, metric) >= 0)
		return 1;
	p->stat_names(job, &known, &fam);
	for (i = 0; i < monitor_table_nr; i++)
		svec_pushf(&fam, "%s.", monitor_table[i]->name);
	if (svec_find(&known, metric) >= 0) {
		ret = 1;
		goto out;
	}
	svec_append(&cands, &known);
	svec_append(&cands, seen);
	family = family_of(&fam, metric);
	if (!family) {
		sbuf_addf(&why, "the job's stats are named");
		for (i = 0; i < fam.nr; i++)
			sbuf_addf(&why, "%s '%s*'",
				  !i		 ? "" :
				  i + 1 < fam.nr ? "," :
						   " or",
				  fam.v[i]);
		ret = unknown(metric, &cands, why.buf);
	} else if (rb_suggest(metric, (const char *const *)cands.v, cands.nr)) {
		ret = unknown(metric, &cands, "");
	} else if (!strcmp(family, fam.v[0]) && seen_in(seen, family)) {
		/* the test's own metrics are the same in every run */
		ret = unknown(metric, &cands,
			      "no stored run of the job has it (see 'robot "
			      "compare')");
	} else {
		ret = 0;
	}
out:
	svec_clear(&known);
	svec_clear(&fam);
	svec_clear(&cands);
	sbuf_release(&why);
	return ret;
}
