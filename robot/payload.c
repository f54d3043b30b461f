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

void payload_setup_release(struct payload_setup *s)
{
	svec_clear(&s->sysctls);
	free(s->user);
	free(s->dir);
	free(s->dev);
	free(s->fs);
	free(s->mkfs_opts);
	free(s->mount_opts);
	memset(s, 0, sizeof(*s));
	svec_init(&s->sysctls);
}

/* Shell words separated by spaces, then end (a newline or a space). */
static void words(struct sbuf *out, const char *const *w, char end)
{
	for (; *w; w++) {
		sbuf_add_shell_word(out, *w);
		sbuf_addch(out, w[1] ? ' ' : end);
	}
}

static void sysctl_line(struct sbuf *out, const char *kv)
{
	words(out,
	      (const char *const[]){ "sysctl", "-w", kv[0] == '?' ? kv + 1 : kv,
				     NULL },
	      '\n');
}

void payload_setup_describe(const struct payload_setup *s,
			    const struct svec *argv, struct sbuf *out)
{
	size_t i = 0;

	/* lkp's order: setup_sysctl, mount_dev, then the test's sysctls */
	for (; i < s->sysctls.nr && s->sysctls.v[i][0] == '?'; i++)
		sysctl_line(out, s->sysctls.v[i]);
	if (s->dev) {
		/* mkfs_opts: the robot's own table, split as lkp's are */
		sbuf_addf(out, "mkfs -t %s %s ", s->fs, s->mkfs_opts);
		words(out, (const char *const[]){ s->dev, NULL }, '\n');
	}
	if (s->dir)
		words(out, (const char *const[]){ "mkdir", "-p", s->dir, NULL },
		      '\n');
	if (s->dev) {
		words(out, (const char *const[]){ "mount", "-t", s->fs, NULL },
		      ' ');
		if (s->mount_opts)
			words(out,
			      (const char *const[]){ "-o", s->mount_opts,
						     NULL },
			      ' ');
		words(out, (const char *const[]){ s->dev, s->dir, NULL }, '\n');
		words(out, (const char *const[]){ "cd", s->dir, NULL }, '\n');
	}
	for (; i < s->sysctls.nr; i++)
		sysctl_line(out, s->sysctls.v[i]);
	if (s->user)
		words(out,
		      (const char *const[]){ "su", "-s", "/bin/sh", "-c",
					     "exec \"$0\" \"$@\"", "-", s->user,
					     "--", NULL },
		      ' ');
	words(out, (const char *const *)argv->v, '\n');
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
	return rb_error_unknown("metric", metric, (const char *const *)cands->v,
				cands->nr, why);
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
