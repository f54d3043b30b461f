// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 0-Day %stddev/%change table (lkp-tests' ncompare), see compare.h.
 * Pure: matrices in, text or JSON out.
 */
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>

#include "robot.h"
#include "compare.h"
#include "sbuf.h"
#include "stats.h"

#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6
/* lkp's MARGIN_SHIFT cap and MAX_RATIO */
#define MAX_MARGIN 3
#define MAX_RATIO 5.0

/* ------------------------------------------------------------------ */
/* matrices */

void cmp_matrix_init(struct cmp_matrix *m)
{
	memset(m, 0, sizeof(*m));
}

void cmp_matrix_release(struct cmp_matrix *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->stats[i].name);
		free(m->stats[i].v);
		free(m->stats[i].is_int);
	}
	free(m->stats);
	free(m->index);
	free(m->label);
	free(m->title);
	cmp_matrix_init(m);
}

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (size_t)h;
}

static void index_put(struct cmp_matrix *m, size_t i)
{
	size_t mask = m->index_size - 1, k;

	for (k = name_hash(m->stats[i].name) & mask; m->index[k];
	     k = (k + 1) & mask)
		;
	m->index[k] = i + 1;
}

const struct cmp_stat *cmp_matrix_find(const struct cmp_matrix *m,
				       const char *name)
{
	size_t mask, k;

	if (!m->index_size)
		return NULL;
	mask = m->index_size - 1;
	for (k = name_hash(name) & mask; m->index[k]; k = (k + 1) & mask)
		if (!strcmp(m->stats[m->index[k] - 1].name, name))
			return &m->stats[m->index[k] - 1];
	return NULL;
}

struct cmp_stat *cmp_matrix_stat(struct cmp_matrix *m, const char *name)
{
	struct cmp_stat *st = (struct cmp_stat *)cmp_matrix_find(m, name);
	size_t i;

	if (st)
		return st;
	if (2 * (m->nr + 1) > m->index_size) {
		free(m->index);
		m->index_size = m->index_size ? 2 * m->index_size : 64;
		m->index = xcalloc(m->index_size, sizeof(*m->index));
		for (i = 0; i < m->nr; i++)
			index_put(m, i);
	}
	RB_ALLOC_GROW(m->stats, m->nr + 1, m->alloc);
	st = &m->stats[m->nr];
	memset(st, 0, sizeof(*st));
	st->name = xstrdup(name);
	index_put(m, m->nr++);
	return st;
}

void cmp_stat_push(struct cmp_stat *st, double v, bool is_int)
{
	size_t old = st->alloc;

	RB_ALLOC_GROW(st->v, st->nr + 1, st->alloc);
	if (st->alloc != old)
		st->is_int =
			xrealloc(st->is_int, st->alloc * sizeof(*st->is_int));
	st->v[st->nr] = v;
	st->is_int[st->nr] = is_int;
	st->nr++;
}

size_t cmp_matrix_cols(const struct cmp_matrix *m)
{
	if (m->has_sources)
		return m->sources;
	if (!m->nr)
		return 0;
	return RB_MAX(m->stats[0].nr, m->stats[m->nr - 1].nr);
}

#define INCOMPLETE "last_state.is_incomplete_run"

void cmp_matrix_complete(struct cmp_matrix *dst, const struct cmp_matrix *src)
{
	const struct cmp_stat *inc = cmp_matrix_find(src, INCOMPLETE);
	size_t i, j;

	cmp_matrix_init(dst);
	dst->label = src->label ? xstrdup(src->label) : NULL;
	dst->title = src->title ? xstrdup(src->title) : NULL;
	dst->has_sources = src->has_sources;
	dst->sources = src->sources;
	if (inc && src->has_sources)
		for (j = 0; j < inc->nr && j < src->sources; j++)
			if (inc->v[j] == 1)
				dst->sources--;
	for (i = 0; i < src->nr; i++) {
		const struct cmp_stat *s = &src->stats[i];
		struct cmp_stat *d;

		if (inc && s == inc)
			continue;
		d = cmp_matrix_stat(dst, s->name);
		d->has_string = s->has_string;
		for (j = 0; j < s->nr; j++)
			if (!inc || j >= inc->nr || inc->v[j] != 1)
				cmp_stat_push(d, s->v[j], s->is_int[j]);
	}
}

/* ------------------------------------------------------------------ */
/* stat classes: our tables after lkp's etc/ files */

enum re_table {
	RE_DENY,
	RE_ALLOW,
	RE_REPORT,
	RE_PERF,
	RE_FAILURE,
	RE_NTABLES,
};

/*
 * etc/stat-denylist: the monitors are not bisectable (and a few
 * bookkeeping stats); etc/stat-allowlist re-admits test failures.
 */
static const char *const deny_rows[] = {
	"^boot-meminfo\\.",
	"^boot-slabinfo\\.",
	"^boot-time\\.",
	"^buddyinfo\\.",
	"^cpuidle\\.",
	"^diskstats\\.",
	"^interrupts\\.",
	"^iostat\\.",
	"^lock_stat\\.",
	"^max_iostat\\.",
	"^meminfo\\.",
	"^mpstat\\.",
	"^numa-meminfo\\.",
	"^numa-numastat\\.",
	"^numa-vmstat\\.",
	"^pagetypeinfo\\.",
	"^perf-profile\\.",
	"^perf-stat\\.",
	"^proc-vmstat\\.",
	"^sched_debug\\.",
	"^slabinfo\\.",
	"^softirqs\\.",
	"^time\\.",
	"^turbostat\\.",
	"^uptime\\.",
	"^vmstat\\.",
	"^zoneinfo\\.",
	"^dmesg\\.boot_(failures|successes)",
	"^dmesg\\.bootstage",
	"^dmesg\\.timestamp:",
	"^kmsg\\.(timestamp|bootstage):",
	"^last_state\\..+\\.exit_code",
	"^last_state\\.(exit_fail|OOM|post_run|soft_timeout)",
	NULL,
};

static const char *const allow_rows[] = {
	"^stress-ng\\..+\\.fail",
	NULL,
};

/* etc/report-allowlist: monitors shown in reports as evidence */
static const char *const report_rows[] = {
	"^meminfo\\.",
	"^mpstat\\.",
	"^numa-meminfo\\.",
	"^numa-vmstat\\.",
	"^perf-profile\\.",
	"^perf-stat\\.",
	"^proc-vmstat\\.",
	"^sched_debug\\.",
	"^turbostat\\.",
	"^vmstat\\.",
	"^lock_stat\\.",
	"^slabinfo\\.",
	"^interrupts\\.",
	"^softirqs\\.",
	"^cpuidle\\.",
	"^numa-numastat\\.",
	NULL,
};

/* etc/perf-metrics-prefixes (test programs' own stats are added below) */
static const char *const perf_rows[] = {
	"^boot-meminfo\\.(DirectMap1G|DirectMap2M|DirectMap4k|KernelStack|"
	"MemFree|MemTotal|PageTables|Slab|VmallocUsed)",
	"^boot-memory\\.(bootmem|code|init)",
	"^boot-slabinfo\\.",
	"^boot-time\\.",
	"^energy\\.",
	"^interrupts\\.CAL:Function_call_interrupts",
	"^iostat\\.",
	"^perf-c2c\\.HITM\\.total",
	"^perf-profile\\.children\\.cycles-pp\\."
	"native_queued_spin_lock_slowpath",
	"^perf-stat\\.",
	"^pmeter\\.",
	"^proc-vmstat\\.",
	"^turbostat\\.(%Busy|Bzy_MHz|C1%|C1E%|CorWatt|Pk%pc10|Pkg%pc[236789]|"
	"PkgTmp|PkgWatt|POLL%|RAMWatt|SYS%LPI)",
	"^vmstat\\.(cpu|io|swap|system)\\.",
	NULL,
};

/* etc/failure and etc/pass: what counts as a pass/fail (function) stat */
static const char *const failure_rows[] = {
	"^(dmesg|kmsg|last_state|stderr)\\.",
	"\\.(pass|fail|error|warn|crash|timeout)$",
	NULL,
};

static const char *const *const re_rows[RE_NTABLES] = {
	deny_rows, allow_rows, report_rows, perf_rows, failure_rows,
};

/* the monitors and bookkeeping programs: any other base is a test */
static const char *const monitors[] = {
	"boot-meminfo",
	"boot-memory",
	"boot-slabinfo",
	"boot-time",
	"bdi_dev_mapping",
	"buddyinfo",
	"cpufreq-stats",
	"cpuidle",
	"diskstats",
	"dmesg",
	"energy",
	"ftrace",
	"heartbeat",
	"interrupts",
	"iostat",
	"kmsg",
	"last_state",
	"lock_stat",
	"max_iostat",
	"meminfo",
	"mpstat",
	"nfsstat",
	"numa-meminfo",
	"numa-numastat",
	"numa-vmstat",
	"pagetypeinfo",
	"perf-c2c",
	"perf-profile",
	"perf-sched",
	"perf-stat",
	"pmeter",
	"proc-stat",
	"proc-vmstat",
	"sched_debug",
	"slabinfo",
	"softirqs",
	"stderr",
	"time",
	"turbostat",
	"uptime",
	"vmstat",
	"zoneinfo",
	NULL,
};

static regex_t *re_compiled[RE_NTABLES];
static pthread_once_t re_once = PTHREAD_ONCE_INIT;

static void re_compile(void)
{
	size_t t, i, n;

	for (t = 0; t < RE_NTABLES; t++) {
		for (n = 0; re_rows[t][n]; n++)
			;
		re_compiled[t] = xcalloc(n + 1, sizeof(regex_t));
		for (i = 0; i < n; i++)
			if (regcomp(&re_compiled[t][i], re_rows[t][i],
				    REG_EXTENDED | REG_NOSUB))
				RB_BUG("bad pattern '%s'", re_rows[t][i]);
	}
}

static bool table_match(enum re_table t, const char *s)
{
	size_t i;

	pthread_once(&re_once, re_compile);
	for (i = 0; re_rows[t][i]; i++)
		if (!regexec(&re_compiled[t][i], s, 0, NULL, 0))
			return true;
	return false;
}

static bool base_is(const char *stat, const char *base)
{
	size_t n = strlen(base);

	return !strncmp(stat, base, n) && stat[n] == '.';
}

static size_t base_len(const char *stat)
{
	const char *dot = strchr(stat, '.');

	return dot ? (size_t)(dot - stat) : strlen(stat);
}

bool cmp_function_stat(const char *stat)
{
	if (strstr(stat, ".time.") || strstr(stat, ".timestamp:") ||
	    strstr(stat, ".bootstage:"))
		return false;
	return table_match(RE_FAILURE, stat);
}

static bool is_test_stat(const char *stat)
{
	size_t n = base_len(stat), i;

	if (!stat[n])
		return false;
	for (i = 0; monitors[i]; i++)
		if (strlen(monitors[i]) == n && !strncmp(stat, monitors[i], n))
			return false;
	return true;
}

bool cmp_perf_metric(const char *stat)
{
	return table_match(RE_PERF, stat) || is_test_stat(stat);
}

bool cmp_absolute_change(const char *stat)
{
	size_t n = strlen(stat);

	return base_is(stat, "perf-profile") ||
	       rb_starts_with(stat, "perf-profile") ||
	       (n && stat[n - 1] == '%');
}

static bool bisectable(const char *stat)
{
	return table_match(RE_ALLOW, stat) || !table_match(RE_DENY, stat);
}

/*
 * etc/perf-metrics-threshold.yaml (the rows we know of) and lkp's
 * built-in floors: a change must be big enough in absolute terms too.
 */
static const struct {
	const char *re;
	long v;
} thresholds[] = {
	{ "^vmstat\\.system\\.cs$", 100 },
	{ "^.*\\.time\\.elapsed_time.*$", 10 },
	{ "^perf-profile.*$", 1 },
};

static bool reasonable_change(const char *k, double delta, double max)
{
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(thresholds); i++) {
		regex_t re;
		bool hit;

		if (regcomp(&re, thresholds[i].re, REG_EXTENDED | REG_NOSUB))
			RB_BUG("bad pattern");
		hit = !regexec(&re, k, 0, NULL, 0);
		regfree(&re);
		if (!hit)
			continue;
		if (max < (double)thresholds[i].v)
			return false;
		/* the YAML value is an Integer: v / 2 is integer division */
		if (delta < (double)(thresholds[i].v / 2))
			return false;
		return true;
	}
	if (rb_starts_with(k, "iostat"))
		return max > 1;
	if (rb_starts_with(k, "pagetypeinfo") ||
	    rb_starts_with(k, "buddyinfo") || rb_starts_with(k, "slabinfo"))
		return delta > 100;
	if (rb_starts_with(k, "proc-vmstat") || strstr(k, "meminfo"))
		return max > 1000;
	if (rb_starts_with(k, "lock_stat")) {
		if (strstr(k + strlen("lock_stat"), "time"))
			return delta > 1000;
		return delta > 10000;
	}
	if (rb_starts_with(k, "interrupts") || rb_starts_with(k, "softirqs"))
		return max > 10000;
	return true;
}

/* ------------------------------------------------------------------ */
/* which stats changed (lkp's _get_changed_stats) */

/*
 * Stat names in the order added, each once; an open-addressing index
 * (v index + 1, 0 empty) as the matrices have, so that a matrix of
 * 200,000 stats builds its table in n log n, not n^2.
 */
struct keyset {
	char **v;
	size_t nr, alloc;
	size_t *index, index_size;
};

static void keyset_index_put(struct keyset *k, size_t i)
{
	size_t mask = k->index_size - 1, at;

	for (at = name_hash(k->v[i]) & mask; k->index[at]; at = (at + 1) & mask)
		;
	k->index[at] = i + 1;
}

/* The index of s in k->v, or k->nr when it is not there. */
static size_t keyset_find(const struct keyset *k, const char *s)
{
	size_t mask, at;

	if (!k->index_size)
		return k->nr;
	mask = k->index_size - 1;
	for (at = name_hash(s) & mask; k->index[at]; at = (at + 1) & mask)
		if (!strcmp(k->v[k->index[at] - 1], s))
			return k->index[at] - 1;
	return k->nr;
}

static void keyset_add(struct keyset *k, const char *s)
{
	size_t i;

	if (keyset_find(k, s) < k->nr)
		return;
	if (2 * (k->nr + 1) > k->index_size) {
		free(k->index);
		k->index_size = k->index_size ? 2 * k->index_size : 64;
		k->index = xcalloc(k->index_size, sizeof(*k->index));
		for (i = 0; i < k->nr; i++)
			if (k->v[i])
				keyset_index_put(k, i);
	}
	RB_ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr] = xstrdup(s);
	keyset_index_put(k, k->nr++);
}

static void keyset_release(struct keyset *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		free(k->v[i]);
	free(k->v);
	free(k->index);
	memset(k, 0, sizeof(*k));
}

/* values of stat k in m padded with zeros to cols (a fresh array) */
static size_t padded(const struct cmp_matrix *m, const char *k, size_t cols,
		     double **v, bool **is_int)
{
	const struct cmp_stat *s = cmp_matrix_find(m, k);
	size_t n = s ? s->nr : 0, i;

	if (n < cols)
		n = cols;
	*v = xcalloc(n ? n : 1, sizeof(**v));
	*is_int = xcalloc(n ? n : 1, sizeof(**is_int));
	for (i = 0; i < n; i++) {
		if (s && i < s->nr) {
			(*v)[i] = s->v[i];
			(*is_int)[i] = s->is_int[i];
		} else {
			(*is_int)[i] = true; /* lkp fills with Integer 0 */
		}
	}
	return n;
}

static bool base_monitored(const struct cmp_matrix *b, const char *k)
{
	size_t n = base_len(k), i;

	for (i = 0; i < b->nr; i++)
		if (base_len(b->stats[i].name) == n &&
		    !strncmp(b->stats[i].name, k, n))
			return true;
	return false;
}

static bool skip_function_stat(const char *k, const struct cmp_matrix *b)
{
	size_t n = strlen(k), i;
	const char *dot = strrchr(k, '.');
	size_t blen = dot ? (size_t)(dot - k) : n;
	char *sb;
	bool skip = false;

	if (base_is(k, "dmesg") || base_is(k, "kmsg") ||
	    base_is(k, "last_state") || base_is(k, "stderr"))
		return false;
	sb = xstrndup(k, blen);
	if (rb_ends_with(k, ".error") || rb_ends_with(k, ".warn") ||
	    rb_ends_with(k, ".fail")) {
		char *pass = xstrfmt("%s.pass", sb);

		skip = !cmp_matrix_find(b, pass);
		free(pass);
	} else if (rb_ends_with(k, ".pass")) {
		skip = true;
		for (i = 0; i < b->nr && skip; i++) {
			const char *o = b->stats[i].name;

			if (!strncmp(o, sb, blen) && o[blen] == '.' &&
			    (!strcmp(o + blen, ".error") ||
			     !strcmp(o + blen, ".warn") ||
			     !strcmp(o + blen, ".fail")))
				skip = false;
		}
	}
	free(sb);
	return skip;
}

static bool stat_changed(const char *k, const struct cmp_matrix *a,
			 const struct cmp_matrix *b, bool incomplete,
			 const struct cmp_opts *o)
{
	const struct cmp_stat *ak = cmp_matrix_find(a, k);
	size_t cols_a = cmp_matrix_cols(a), cols_b = cmp_matrix_cols(b);
	bool function = cmp_function_stat(k), changed = false;
	struct stats_lkp_summary sa, sbs;
	double *av, *bv, max, delta, ratio;
	const struct stats_lkp_summary *hi, *lo;
	bool *ai, *bi;
	size_t na, nb, margin;

	if (!strcmp(k, "stats_source"))
		return false;
	if (ak && ak->has_string)
		return false;
	if (incomplete && !base_is(k, "dmesg") && !base_is(k, "last_state") &&
	    !base_is(k, "stderr"))
		return false;
	if (!o->more && !bisectable(k) && !table_match(RE_REPORT, k))
		return false;
	if (function) {
		if (skip_function_stat(k, b))
			return false;
	} else if (cols_a < 3 && cols_b < 3) {
		return false;
	}
	if (!cmp_matrix_find(b, k) && !function &&
	    !((base_is(k, "lock_stat") || base_is(k, "perf-profile")) &&
	      base_monitored(b, k)))
		return false;

	margin = function ? 0 : MAX_MARGIN;
	nb = padded(b, k, cols_b, &bv, &bi);
	na = padded(a, k, cols_a, &av, &ai);
	stats_lkp_summary(&sbs, bv, bi, nb, margin);
	if (nb <= 3 && margin > 1)
		margin = 1;
	stats_lkp_summary(&sa, av, ai, na, margin);
	if (!sbs.n || !sa.n)
		goto out;

	/* perf-profile's own rule applies when lkp's middle is an Integer */
	if (base_is(k, "perf-profile") && sa.mid_is_int)
		changed = sa.mid > 5 || sbs.mid > 5;
	else if (function)
		changed = sa.max != sbs.max;
	else
		changed = stats_lkp_changed(&sa, &sbs);
	if (!changed)
		goto out;

	/* skip_small_change? (not for perf-profile: ncompare sets its option) */
	if (base_is(k, "perf-profile"))
		goto out;
	max = RB_MAX(sbs.max, sa.max);
	if (sa.mid > sbs.mid) {
		hi = &sa;
		lo = &sbs;
	} else {
		hi = &sbs;
		lo = &sa;
	}
	delta = hi->mid - lo->mid;
	ratio = lo->mid > 0 ? hi->mid / lo->mid : MAX_RATIO;
	if (ratio > MAX_RATIO)
		ratio = MAX_RATIO;
	if (!(ratio > 1.01) || !(ratio > 1.05 || cmp_perf_metric(k)) ||
	    !reasonable_change(k, delta, max))
		changed = false;
out:
	free(av);
	free(ai);
	free(bv);
	free(bi);
	return changed;
}

static void changed_pass(struct keyset *out, const struct cmp_matrix *a,
			 const struct cmp_matrix *b, bool incomplete,
			 const struct cmp_opts *o)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (stat_changed(a->stats[i].name, a, b, incomplete, o))
			keyset_add(out, a->stats[i].name);
	/* the base's stats missing from a count as zeros in a */
	for (i = 0; i < b->nr; i++)
		if (!cmp_matrix_find(a, b->stats[i].name) &&
		    stat_changed(b->stats[i].name, a, b, incomplete, o))
			keyset_add(out, b->stats[i].name);
}

static void changed_stats(struct keyset *out, const struct cmp_matrix *a,
			  const struct cmp_matrix *b, const struct cmp_opts *o)
{
	struct cmp_matrix ca, cb;
	bool incomplete = cmp_matrix_find(a, INCOMPLETE) ||
			  cmp_matrix_find(b, INCOMPLETE);

	changed_pass(out, a, b, incomplete, o);
	if (!incomplete)
		return;
	/* then the perf stats of the complete runs only */
	cmp_matrix_complete(&ca, a);
	cmp_matrix_complete(&cb, b);
	if (ca.has_sources && ca.sources && cb.has_sources && cb.sources)
		changed_pass(out, &ca, &cb, false, o);
	cmp_matrix_release(&ca);
	cmp_matrix_release(&cb);
}

/* ------------------------------------------------------------------ */
/* rows */

/* Ruby's Array#sum: Kahan-Babuska (Neumaier) compensated summation */
static double rsum(const double *v, size_t n)
{
	double s = 0, c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double t = s + v[i];

		if (fabs(s) >= fabs(v[i]))
			c += (s - t) + v[i];
		else
			c += (v[i] - t) + s;
		s = t;
	}
	return s + c;
}

static double pop_stddev(const double *v, size_t n, double mean)
{
	double *d = xmalloc(n * sizeof(*d)), s;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = (v[i] - mean) * (v[i] - mean);
	s = sqrt(rsum(d, n) / (double)n);
	free(d);
	return s;
}

static void row_init(struct cmp_row *r, const char *name, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->avgs = xcalloc(n, sizeof(double));
	r->stddevs = xcalloc(n, sizeof(double));
	r->fails = xcalloc(n, sizeof(double));
	r->runs = xcalloc(n, sizeof(size_t));
	r->changes = xcalloc(n, sizeof(double));
}

static void row_fill(struct cmp_row *r, const struct cmp_matrix *const *ms,
		     const struct cmp_matrix *cms, size_t n)
{
	size_t i;

	r->failure = cmp_function_stat(r->name);
	for (i = 0; i < n; i++) {
		const struct cmp_stat *s;

		r->runs[i] = cmp_matrix_cols(r->failure ? ms[i] : &cms[i]);
		if (r->failure) {
			s = cmp_matrix_find(ms[i], r->name);
			r->fails[i] = s ? rsum(s->v, s->nr) : 0;
			continue;
		}
		s = cmp_matrix_find(&cms[i], r->name);
		if (!s || !s->nr) {
			r->avgs[i] = 0;
			r->stddevs[i] = -1;
			continue;
		}
		r->avgs[i] = rsum(s->v, s->nr) / (double)s->nr;
		r->stddevs[i] =
			s->nr > 1 ? pop_stddev(s->v, s->nr, r->avgs[i]) : -1;
	}
	if (r->failure) {
		double r0 = r->fails[0] / (double)r->runs[0];

		/* lkp divides commit i's fails by runs[i - 1] */
		for (i = 1; i < n; i++)
			r->changes[i - 1] =
				100 *
				(r->fails[i] / (double)r->runs[i - 1] - r0);
		return;
	}
	r->abs = cmp_absolute_change(r->name);
	for (i = 1; i < n; i++) {
		if (r->abs)
			r->changes[i - 1] = r->avgs[i] - r->avgs[0];
		else
			r->changes[i - 1] =
				stats_pct_change(r->avgs[0], r->avgs[i]);
	}
}

/* lkp's sort key: [group count, name (perf-profile: 2 parts), changes] */
struct sort_item {
	struct cmp_row *row;
	char *key;
	size_t ncommits, index;
};

static int cmp_sort_item(const void *x, const void *y)
{
	const struct sort_item *a = x, *b = y;
	size_t i;
	int c;

	if (a->row->group_count != b->row->group_count)
		return a->row->group_count < b->row->group_count ? -1 : 1;
	c = strcmp(a->key, b->key);
	if (c)
		return c < 0 ? -1 : 1;
	for (i = 0; i + 1 < a->ncommits; i++)
		if (a->row->changes[i] != b->row->changes[i])
			return a->row->changes[i] < b->row->changes[i] ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static char *sort_key(const char *name)
{
	const char *p = name;
	int dots = 0;

	if (!base_is(name, "perf-profile"))
		return xstrdup(name);
	while (*p) {
		if (*p == '.' && ++dots == 2)
			break;
		p++;
	}
	return xstrndup(name, (size_t)(p - name));
}

void cmp_opts_init(struct cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->compare_key = "commit";
}

void cmp_table_release(struct cmp_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		struct cmp_row *r = &t->rows[i];

		free((char *)r->name);
		free(r->avgs);
		free(r->stddevs);
		free(r->fails);
		free(r->runs);
		free(r->changes);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

int cmp_table_build(struct cmp_table *t, const struct cmp_opts *o,
		    const struct cmp_matrix *const *m, size_t n)
{
	struct keyset keys = { 0 }, bases = { 0 };
	struct cmp_matrix *cms;
	struct sort_item *items;
	long *counts;
	size_t i, j;

	memset(t, 0, sizeof(*t));
	if (n < 2)
		return rb_error("compare needs at least 2 commits, got %zu", n);
	t->ncommits = n;
	if (o->all) {
		for (i = 0; i < n; i++)
			for (j = 0; j < m[i]->nr; j++)
				if (strcmp(m[i]->stats[j].name,
					   "stats_source") &&
				    !m[i]->stats[j].has_string)
					keyset_add(&keys, m[i]->stats[j].name);
	} else {
		for (i = 1; i < n; i++)
			changed_stats(&keys, m[i], m[0], o);
		for (j = 0; j < o->nkeep; j++)
			for (i = 0; i < n; i++)
				if (cmp_matrix_find(m[i], o->keep[j]))
					keyset_add(&keys, o->keep[j]);
	}
	cms = xcalloc(n, sizeof(*cms));
	for (i = 0; i < n; i++)
		cmp_matrix_complete(&cms[i], m[i]);
	t->rows = xcalloc(keys.nr ? keys.nr : 1, sizeof(*t->rows));
	t->nr = keys.nr;
	for (i = 0; i < keys.nr; i++) {
		row_init(&t->rows[i], keys.v[i], n);
		keys.v[i] = NULL; /* the row owns the name now */
		row_fill(&t->rows[i], m, cms, n);
	}
	/* group counts: failure groups start at -10000 (they sort first) */
	counts = xcalloc(keys.nr ? keys.nr : 1, sizeof(*counts));
	for (i = 0; i < t->nr; i++) {
		char *b = xstrndup(t->rows[i].name, base_len(t->rows[i].name));

		j = keyset_find(&bases, b);
		if (j == bases.nr) {
			keyset_add(&bases, b);
			counts[j] = t->rows[i].failure ? -10000 : 0;
		}
		counts[j]++;
		free(b);
	}
	for (i = 0; i < t->nr; i++) {
		char *b = xstrndup(t->rows[i].name, base_len(t->rows[i].name));

		j = keyset_find(&bases, b);
		t->rows[i].group_count = counts[j];
		free(b);
	}
	items = xcalloc(t->nr ? t->nr : 1, sizeof(*items));
	for (i = 0; i < t->nr; i++) {
		items[i].row = &t->rows[i];
		items[i].key = sort_key(t->rows[i].name);
		items[i].ncommits = n;
		items[i].index = i;
	}
	qsort(items, t->nr, sizeof(*items), cmp_sort_item);
	{
		struct cmp_row *sorted =
			xcalloc(t->nr ? t->nr : 1, sizeof(*sorted));

		for (i = 0; i < t->nr; i++) {
			sorted[i] = *items[i].row;
			free(items[i].key);
		}
		free(t->rows);
		t->rows = sorted;
	}
	free(items);
	free(counts);
	for (i = 0; i < n; i++)
		cmp_matrix_release(&cms[i]);
	free(cms);
	keyset_release(&keys);
	keyset_release(&bases);
	return 0;
}

/* ------------------------------------------------------------------ */
/* formats */

/* Ruby's %d of a Float: truncated toward zero, any size */
static void add_trunc(struct sbuf *out, int width, bool left, double x)
{
	double t = trunc(x);

	if (fabs(t) < 9e18)
		sbuf_addf(out, left ? "%-*lld" : "%*lld", width, (long long)t);
	else
		sbuf_addf(out, left ? "%-*.0f" : "%*.0f", width, t);
}

/* non-finite numbers print as Ruby does: Inf, -Inf, NaN */
static bool add_nonfinite(struct sbuf *out, int width, double x, bool plus)
{
	if (isnan(x)) {
		sbuf_addf(out, "%*s", width, "NaN");
		return true;
	}
	if (isinf(x)) {
		sbuf_addf(out, "%*s", width,
			  x < 0 ? "-Inf" :
			  plus	? "+Inf" :
				  "Inf");
		return true;
	}
	return false;
}

void cmp_fmt_value(struct sbuf *out, double avg)
{
	if (add_nonfinite(out, ABS_WIDTH, avg, false))
		return;
	if (fabs(avg) < 1000)
		sbuf_addf(out, "%*.2f", ABS_WIDTH, avg);
	else if (fabs(avg) > 100000000)
		sbuf_addf(out, "%*.4g", ABS_WIDTH, avg);
	else
		add_trunc(out, ABS_WIDTH, false, avg);
}

void cmp_fmt_stddev(struct sbuf *out, double avg, double stddev)
{
	double pct = avg != 0 ? 100 * stddev / avg : stddev;

	if (pct > 2) {
		sbuf_addstr(out, " \u00b1");
		if (isinf(pct))
			sbuf_addf(out, "%*s", ERR_WIDTH - 3, "Inf");
		else
			add_trunc(out, ERR_WIDTH - 3, false, pct);
		sbuf_addch(out, '%');
	} else {
		sbuf_addf(out, "%*s", ERR_WIDTH, "");
	}
}

void cmp_fmt_change(struct sbuf *out, double p, bool abs)
{
	if (!add_nonfinite(out, REL_WIDTH, p, true)) {
		if (fabs(p) < 100000)
			sbuf_addf(out, "%+*.1f", REL_WIDTH, p);
		else
			sbuf_addf(out, "%+*.2g", REL_WIDTH, p);
	}
	sbuf_addstr(out, abs ? "  " : "% ");
}

void cmp_fmt_perf_row(struct sbuf *out, const struct cmp_row *r,
		      size_t ncommits)
{
	size_t i;

	for (i = 0; i < ncommits; i++) {
		if (i)
			cmp_fmt_change(out, r->changes[i - 1], r->abs);
		cmp_fmt_value(out, r->avgs[i]);
		cmp_fmt_stddev(out, r->avgs[i], r->stddevs[i]);
	}
	sbuf_addf(out, "  %s\n", r->name);
}

void cmp_fmt_failure_row(struct sbuf *out, const struct cmp_row *r,
			 size_t ncommits)
{
	size_t i;

	for (i = 0; i < ncommits; i++) {
		if (i) {
			if (!add_nonfinite(out, REL_WIDTH, r->changes[i - 1],
					   false))
				sbuf_addf(out, "%*.0f", REL_WIDTH,
					  r->changes[i - 1]);
			sbuf_addstr(out, "% ");
		}
		if (r->fails[i] == 0)
			sbuf_addf(out, "%*s", ABS_WIDTH + 1, "");
		else
			add_trunc(out, ABS_WIDTH + 1, false, r->fails[i]);
		sbuf_addf(out, ":%-*zu", ERR_WIDTH - 2, r->runs[i]);
	}
	sbuf_addf(out, "  %s\n", r->name);
}

static int cmp_axis_key(const void *x, const void *y)
{
	return strcmp(((const struct cmp_axis *)x)->key,
		      ((const struct cmp_axis *)y)->key);
}

static void render_header(struct sbuf *out, const struct cmp_opts *o,
			  const struct cmp_matrix *const *m, size_t n)
{
	const int first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;
	size_t i;

	sbuf_addstr(out, "==============================================="
			 "==========================================\n");
	if (o->naxes) {
		struct cmp_axis *ax = xmalloc(o->naxes * sizeof(*ax));

		memcpy(ax, o->axes, o->naxes * sizeof(*ax));
		qsort(ax, o->naxes, sizeof(*ax), cmp_axis_key);
		for (i = 0; i < o->naxes; i++)
			sbuf_addf(out, "%s%s", i ? "/" : "", ax[i].key);
		sbuf_addstr(out, ":\n  ");
		for (i = 0; i < o->naxes; i++)
			sbuf_addf(out, "%s%s", i ? "/" : "", ax[i].value);
		sbuf_addstr(out, "\n\n");
		free(ax);
	}
	sbuf_addf(out, "%s: \n", o->compare_key ? o->compare_key : "commit");
	for (i = 0; i < n; i++)
		sbuf_addf(out, "  %s\n",
			  m[i]->title ? m[i]->title :
			  m[i]->label ? m[i]->label :
					"");
	sbuf_addch(out, '\n');
	for (i = 0; i < n; i++) {
		const char *l = m[i]->label ? m[i]->label : "";
		int w = i ? width : first;

		sbuf_addf(out, "%*.*s ", w, w, l);
	}
	sbuf_addch(out, '\n');
	for (i = 0; i < n; i++) {
		int k, w = i ? width : first;

		for (k = 0; k < w; k++)
			sbuf_addch(out, '-');
		sbuf_addch(out, ' ');
	}
	sbuf_addch(out, '\n');
}

int cmp_render(struct sbuf *out, const struct cmp_opts *o,
	       const struct cmp_matrix *const *m, size_t n)
{
	struct cmp_table t;
	size_t i, k, nfail = 0;

	if (cmp_table_build(&t, o, m, n))
		return -1;
	for (i = 0; i < t.nr; i++)
		nfail += t.rows[i].failure;
	if (!t.nr) {
		cmp_table_release(&t);
		return 0;
	}
	render_header(out, o, m, n);
	if (nfail) {
		sbuf_addstr(out, "       fail:runs");
		for (k = 1; k < n; k++)
			sbuf_addstr(out, "  %reproduction    fail:runs");
		sbuf_addstr(out, "\n           |    ");
		for (k = 1; k < n; k++)
			sbuf_addstr(out, "         |             |    ");
		sbuf_addch(out, '\n');
		for (i = 0; i < t.nr; i++)
			if (t.rows[i].failure)
				cmp_fmt_failure_row(out, &t.rows[i], n);
	}
	if (nfail < t.nr) {
		sbuf_addstr(out, "         %stddev");
		for (k = 1; k < n; k++)
			sbuf_addstr(out, "     %change         %stddev");
		sbuf_addstr(out, "\n             \\  ");
		for (k = 1; k < n; k++)
			sbuf_addstr(out, "        |                \\  ");
		sbuf_addch(out, '\n');
		for (i = 0; i < t.nr; i++)
			if (!t.rows[i].failure)
				cmp_fmt_perf_row(out, &t.rows[i], n);
	}
	sbuf_addch(out, '\n');
	cmp_table_release(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON */

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *json_tests(const struct cmp_table *t,
			  const struct cmp_matrix *const *m, size_t n)
{
	json_t *arr = json_array();
	struct cmp_matrix c0, ci;
	size_t i, r;

	cmp_matrix_complete(&c0, m[0]);
	for (i = 1; i < n; i++) {
		cmp_matrix_complete(&ci, m[i]);
		for (r = 0; r < t->nr; r++) {
			const struct cmp_row *row = &t->rows[r];
			const struct cmp_stat *a, *b;
			struct stats_detect_opts o;
			struct stats_detection d;
			json_t *j;

			if (row->failure)
				continue;
			a = cmp_matrix_find(&c0, row->name);
			b = cmp_matrix_find(&ci, row->name);
			if (!a || !b || a->nr < 2 || b->nr < 2)
				continue;
			stats_detect_opts_init(&o);
			o.direction = stats_direction(row->name);
			if (stats_detect(&o, a->v, a->nr, b->v, b->nr, &d,
					 NULL))
				continue;
			j = json_object();
			json_object_set_new(j, "stat", json_string(row->name));
			json_object_set_new(j, "commit", json_integer((int)i));
			json_object_set_new(j, "direction",
					    json_integer(o.direction));
			json_object_set_new(j, "change_pct",
					    jnum(d.change_pct));
			json_object_set_new(
				j, "ci_pct",
				d.ci_pct.bounded ?
					json_pack("[oo]", jnum(d.ci_pct.lo),
						  jnum(d.ci_pct.hi)) :
					json_null());
			json_object_set_new(j, "p", jnum(d.p));
			json_object_set_new(j, "significant",
					    json_boolean(d.significant));
			json_object_set_new(j, "regression",
					    json_boolean(d.regression));
			json_object_set_new(j, "improvement",
					    json_boolean(d.improvement));
			json_array_append_new(arr, j);
		}
		cmp_matrix_release(&ci);
	}
	cmp_matrix_release(&c0);
	return arr;
}

int cmp_render_json(struct sbuf *out, const struct cmp_opts *o,
		    const struct cmp_matrix *const *m, size_t n)
{
	struct cmp_table t;
	json_t *root, *axes, *commits, *rows;
	char *text;
	size_t i, k;

	if (cmp_table_build(&t, o, m, n))
		return -1;
	root = json_object();
	axes = json_object();
	for (i = 0; i < o->naxes; i++)
		json_object_set_new(axes, o->axes[i].key,
				    json_string(o->axes[i].value));
	json_object_set_new(root, "axes", axes);
	commits = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(
			commits,
			json_pack("{s:s?, s:s?, s:I}", "label", m[i]->label,
				  "title", m[i]->title, "runs",
				  (json_int_t)cmp_matrix_cols(m[i])));
	json_object_set_new(root, "commits", commits);
	rows = json_array();
	for (i = 0; i < t.nr; i++) {
		const struct cmp_row *r = &t.rows[i];
		json_t *j = json_object(), *vals = json_array(),
		       *ch = json_array();

		json_object_set_new(j, "stat", json_string(r->name));
		json_object_set_new(j, "kind",
				    json_string(r->failure ? "fail" : "perf"));
		for (k = 0; k < n; k++) {
			if (r->failure)
				json_array_append_new(
					vals,
					json_pack("{s:o, s:I}", "fails",
						  jnum(r->fails[k]), "runs",
						  (json_int_t)r->runs[k]));
			else
				json_array_append_new(
					vals,
					json_pack(
						"{s:o, s:o, s:I}", "mean",
						jnum(r->avgs[k]), "stddev_pct",
						r->stddevs[k] < 0 ||
								r->avgs[k] ==
									0 ?
							json_null() :
							jnum(100 *
							     r->stddevs[k] /
							     fabs(r->avgs[k])),
						"runs",
						(json_int_t)r->runs[k]));
			if (k)
				json_array_append_new(ch,
						      jnum(r->changes[k - 1]));
		}
		json_object_set_new(j, "values", vals);
		json_object_set_new(j, "changes", ch);
		json_object_set_new(j, "absolute", json_boolean(r->abs));
		json_array_append_new(rows, j);
	}
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "tests", json_tests(&t, m, n));
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	sbuf_addstr(out, text);
	sbuf_addch(out, '\n');
	free(text);
	json_decref(root);
	cmp_table_release(&t);
	return 0;
}
