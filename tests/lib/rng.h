/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_TESTS_RNG_H
#define ROBOT_TESTS_RNG_H

/*
 * The seeded generator of the unit tests and the simulations: splitmix64,
 * uniform doubles in (0, 1), gaussian by Box-Muller. Seeded randomness
 * only: the same seed, the same numbers.
 */
#include <math.h>
#include <stdint.h>

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline double rng_unif(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double rng_gauss(struct rng *r)
{
	return sqrt(-2 * log(rng_unif(r))) * cos(2 * M_PI * rng_unif(r));
}

#endif
