// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory of a linux-sized graph: N synthetic commits (25% merges) loaded
 * into struct rb_graph, then a 50k-candidate range weighed. Prints the
 * peak RSS after each phase; "OK" when under 200 MB and 500 MB.
 */
#include <sys/resource.h>

#include "robot.h"
#include "bisect.h"

static double rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

static void oid_of(uint32_t i, uint8_t *oid)
{
	uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ULL;
	int k;

	for (k = 0; k < RB_OID_RAWSZ; k++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ULL;
		oid[k] = (uint8_t)(h >> 56);
	}
}

int main(int argc, char **argv)
{
	struct rb_graph g;
	struct rb_find f = RB_FIND_INIT;
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1300000;
	uint32_t i, range = 50000, *list;
	uint64_t s = 7;
	double r1, r2;

	rb_graph_init(&g);
	for (i = 0; i < n; i++) {
		uint8_t oid[RB_OID_RAWSZ], par[2][RB_OID_RAWSZ];
		uint32_t np = i ? 1 : 0;

		oid_of(i, oid);
		if (i)
			oid_of(i - 1, par[0]);
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		if (i > 64 && (s >> 62) == 0) {
			oid_of(i - 2 - (uint32_t)((s >> 20) % 60), par[1]);
			np = 2;
		}
		rb_graph_add(&g, oid, (int64_t)i, RB_NODE_CAND, np,
			     (const uint8_t(*)[RB_OID_RAWSZ])par);
	}
	rb_graph_resolve(&g);
	r1 = rss_mib();
	printf("graph of %u commits loaded: peak RSS %.0f MiB (target < 200)\n",
	       n, r1);
	/* weigh the newest 50k commits as one range */
	list = xmalloc(sizeof(*list) * range);
	for (i = 0; i < range; i++)
		list[i] = n - 1 - i;
	rb_bisect_find(&g, list, range, 0, &f);
	r2 = rss_mib();
	printf("weighing %u candidates: peak RSS %.0f MiB (target < 500)\n",
	       range, r2);
	printf("%s\n", r1 < 200 && r2 < 500 ? "OK" : "MEMORY TARGET MISSED");
	rb_find_release(&f);
	free(list);
	rb_graph_release(&g);
	return 0;
}
