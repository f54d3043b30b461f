/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_STATS_INTERNAL_H
#define ROBOT_STATS_INTERNAL_H

#include <stddef.h>

#include "stats.h"

/* Helpers the stats*.c files share (not part of the API). */
int stats_cmp_double(const void *a, const void *b);
double *stats_sorted_copy(const double *v, size_t n);
double stats_sorted_quantile(const double *s, size_t n, double q);
double stats_sorted_trimmed_mean(const double *s, size_t n, double frac);
double stats_t_upper(double t, double df);

double stats_sided_p(double stat, double df, enum stats_alt alt);

#endif
