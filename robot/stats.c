// SPDX-License-Identifier: GPL-2.0-only
/*
 * Descriptive statistics: sample sets, summaries (lkp's too), and the
 * directions of lkp's stats. The distributions are in stats-dist.c, the
 * two-sample tests in stats-test.c, the robot's decisions in
 * stats-verdict.c; stats.h has the API and the reasoning. Pure.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"
#include "stats-internal.h"

/* ------------------------------------------------------------------ */
/* Sample sets */

void stats_set_init(struct stats_set *s)
{
	memset(s, 0, sizeof(*s));
}

void stats_set_release(struct stats_set *s)
{
	free(s->v);
	free(s->host);
	free(s->when);
	stats_set_init(s);
}

static void set_grow(struct stats_set *s, size_t n)
{
	if (n <= s->alloc)
		return;
	RB_ALLOC_GROW(s->v, n, s->alloc);
	if (s->host) {
		s->host = xrealloc(s->host, s->alloc * sizeof(*s->host));
		s->when = xrealloc(s->when, s->alloc * sizeof(*s->when));
	}
}

void stats_set_add(struct stats_set *s, double x)
{
	set_grow(s, s->nr + 1);
	s->v[s->nr] = x;
	if (s->host) {
		s->host[s->nr] = 0;
		s->when[s->nr] = 0;
	}
	s->nr++;
}

void stats_set_addv(struct stats_set *s, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		stats_set_add(s, v[i]);
}

void stats_set_add_run(struct stats_set *s, double x, int host, double when)
{
	set_grow(s, s->nr + 1);
	if (!s->host) {
		s->host = xcalloc(s->alloc ? s->alloc : 1, sizeof(*s->host));
		s->when = xcalloc(s->alloc ? s->alloc : 1, sizeof(*s->when));
	}
	s->v[s->nr] = x;
	s->host[s->nr] = host;
	s->when[s->nr] = when;
	s->nr++;
}

size_t stats_set_count_on(const struct stats_set *s, int host)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		if (!s->host || s->host[i] == host)
			n++;
	return n;
}

void stats_set_copy(struct stats_set *dst, const struct stats_set *src)
{
	size_t i;

	stats_set_release(dst);
	for (i = 0; i < src->nr; i++) {
		if (src->host)
			stats_set_add_run(dst, src->v[i], src->host[i],
					  src->when[i]);
		else
			stats_set_add(dst, src->v[i]);
	}
}

/* ------------------------------------------------------------------ */
/* Summaries */

void stats_running_add(struct stats_running *r, double x)
{
	double delta;

	if (!r->n || x < r->min)
		r->min = x;
	if (!r->n || x > r->max)
		r->max = x;
	r->n++;
	delta = x - r->mean;
	r->mean += delta / (double)r->n;
	r->m2 += delta * (x - r->mean);
}

double stats_running_var_pop(const struct stats_running *r)
{
	return r->n ? r->m2 / (double)r->n : 0;
}

double stats_running_var(const struct stats_running *r)
{
	return r->n > 1 ? r->m2 / (double)(r->n - 1) : 0;
}

int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double *stats_sorted_copy(const double *v, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	if (n)
		memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	return s;
}

/* Quantile of an already sorted array (type 7). */
double stats_sorted_quantile(const double *s, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return 0;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (h - lo) * (s[i + 1] - s[i]);
}

double stats_sorted_trimmed_mean(const double *s, size_t n, double frac)
{
	size_t g = (size_t)floor(frac * (double)n), i;
	double sum = 0;

	if (!n)
		return 0;
	if (2 * g >= n)
		g = (n - 1) / 2;
	for (i = g; i < n - g; i++)
		sum += s[i];
	return sum / (double)(n - 2 * g);
}

double stats_mean(const double *v, size_t n)
{
	struct stats_running r = STATS_RUNNING_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		stats_running_add(&r, v[i]);
	return r.mean;
}

double stats_quantile(const double *v, size_t n, double q)
{
	double *s = stats_sorted_copy(v, n), r = stats_sorted_quantile(s, n, q);

	free(s);
	return r;
}

double stats_median(const double *v, size_t n)
{
	return stats_quantile(v, n, 0.5);
}

double stats_trimmed_mean(const double *v, size_t n, double frac)
{
	double *s = stats_sorted_copy(v, n),
	       r = stats_sorted_trimmed_mean(s, n, frac);

	free(s);
	return r;
}

void stats_summarize(struct stats_summary *out, const double *v, size_t n)
{
	struct stats_running r = STATS_RUNNING_INIT;
	double *s, *dev;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	for (i = 0; i < n; i++)
		stats_running_add(&r, v[i]);
	s = stats_sorted_copy(v, n);
	out->n = n;
	out->mean = r.mean;
	out->stddev_pop = sqrt(stats_running_var_pop(&r));
	out->stddev = sqrt(stats_running_var(&r));
	out->cv_pct = r.mean != 0 ? 100 * out->stddev_pop / r.mean : 0;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = stats_sorted_quantile(s, n, 0.5);
	out->q1 = stats_sorted_quantile(s, n, 0.25);
	out->q3 = stats_sorted_quantile(s, n, 0.75);
	out->trimmed_mean = stats_sorted_trimmed_mean(s, n, 0.2);
	dev = xmalloc(n * sizeof(*dev));
	for (i = 0; i < n; i++)
		dev[i] = fabs(v[i] - out->median);
	qsort(dev, n, sizeof(*dev), stats_cmp_double);
	out->mad = stats_sorted_quantile(dev, n, 0.5);
	free(dev);
	free(s);
}

struct idx_val {
	double v;
	bool is_int;
};

static int cmp_idx_val(const void *a, const void *b)
{
	return stats_cmp_double(&((const struct idx_val *)a)->v,
				&((const struct idx_val *)b)->v);
}

void stats_lkp_summary(struct stats_lkp_summary *out, const double *v,
		       const bool *is_int, size_t n, size_t max_margin)
{
	struct idx_val *s;
	size_t margin = n >> 5, i, k;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	if (margin > max_margin)
		margin = max_margin;
	s = xmalloc(n * sizeof(*s));
	for (i = 0; i < n; i++) {
		s[i].v = v[i];
		s[i].is_int = is_int ? is_int[i] : false;
	}
	qsort(s, n, sizeof(*s), cmp_idx_val);
	if (2 * margin >= n) {
		free(s);
		return;
	}
	k = n - 2 * margin;
	out->n = k;
	out->min = s[margin].v;
	out->mid = s[margin + k / 2].v;
	out->mid_is_int = s[margin + k / 2].is_int;
	out->max = s[n - margin - 1].v;
	free(s);
}

double stats_pct_change(double a, double b)
{
	if (a == 0)
		a = 1e-100;
	return 100.0 * (b - a) / a;
}

bool stats_lkp_changed(const struct stats_lkp_summary *a,
		       const struct stats_lkp_summary *b)
{
	if (!a->n || !b->n)
		return false;
	return (b->min > a->mid && b->mid > a->max) ||
	       (a->min > b->mid && a->mid > b->max);
}

/* ------------------------------------------------------------------ */
/* Directions */

static const struct {
	const char *re;
	int dir;
} direction_rows[] = {
	/* lkp's index: stress-ng rates are higher-is-better KPIs */
	{ "^stress-ng\\..+_per_(sec|item|seek)$", 1 },
	/* bogo ops counts depend on the run time: not a KPI */
	{ "^stress-ng\\.[^.]+\\.ops$", 0 },
	{ "\\.(fail|error|warn)$", -1 },
	{ "\\.pass$", 1 },
	/* latencies and times: lower is better */
	{ "latency|(^|[._])lat([._]|$)|wait_time|sch_delay|_delay", -1 },
	{ "(^|\\.)time\\.(elapsed_time|system_time|user_time)", -1 },
	{ "(_|\\.)(ns|us|usec|ms|msec|sec|seconds)(\\.max)?$", -1 },
	{ "\\.ms\\.", -1 },
	/* rates and throughputs: higher is better */
	{ "_per_(sec|s|min|second)$|throughput|(^|[._])ops_per|MB/sec|"
	  "_MB_per_sec|bogo_ops",
	  1 },
	{ "_per_", 1 },
};

static regex_t direction_re[RB_ARRAY_SIZE(direction_rows)];
static int direction_ok[RB_ARRAY_SIZE(direction_rows)];
static pthread_once_t direction_once = PTHREAD_ONCE_INIT;

static void direction_compile(void)
{
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(direction_rows); i++)
		direction_ok[i] =
			!regcomp(&direction_re[i], direction_rows[i].re,
				 REG_EXTENDED | REG_NOSUB | REG_ICASE);
}

int stats_direction(const char *stat)
{
	size_t i;

	pthread_once(&direction_once, direction_compile);
	for (i = 0; i < RB_ARRAY_SIZE(direction_rows); i++)
		if (direction_ok[i] &&
		    !regexec(&direction_re[i], stat, 0, NULL, 0))
			return direction_rows[i].dir;
	return 0;
}

int stats_parse_pct(const char *text, double *pct, int *sign)
{
	const char *num = text;
	size_t n = strlen(text), len;
	char *copy, *end;
	double v;

	*sign = 0;
	if (*num == '-' || *num == '+') {
		*sign = *num == '-' ? -1 : +1;
		num++;
	}
	len = strlen(num);
	if (len < 2 || text[n - 1] != '%')
		return rb_error("threshold '%s' is not a percentage (5%%, "
				"-5%%: a drop is the regression, +5%%: a rise "
				"is)",
				text);
	copy = xstrndup(num, len - 1);
	/*
	 * strtod alone would take " 5", "-5" after the sign, "0x5", "inf":
	 * a percentage is plain decimal digits
	 */
	v = strtod(copy, &end);
	if ((!isdigit((unsigned char)*copy) && *copy != '.') || *end ||
	    copy[strspn(copy, "0123456789.eE+-")]) {
		rb_error("threshold '%s': '%s' is not a number", text, copy);
		free(copy);
		return -1;
	}
	free(copy);
	/*
	 * a drop of 100% or more would take the metric to 0 or below; an
	 * unsigned one may be a drop (the metric decides)
	 */
	if (*sign <= 0 && !(v > 0 && v < 100))
		return rb_error("threshold '%s' must be between 0%% and 100%%",
				text);
	if (*sign > 0 && !(v > 0 && isfinite(v)))
		return rb_error("threshold '%s' must be more than 0%%", text);
	*pct = v;
	return 0;
}

const char *stats_change_kind(int direction, double change)
{
	if (!direction)
		return "undefined";
	return direction * change < 0 ? "regression" : "improvement";
}
