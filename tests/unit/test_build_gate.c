// SPDX-License-Identifier: GPL-2.0-only
/*
 * Build slots (robot/build-gate.c): a box's build never waits for a build
 * ahead; builds ahead take only free slots.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>

#include "robot.h"
#include "build-gate.h"
#include "svec.h"

struct box {
	struct build_gate *g;
	struct build_ticket t;
};

static void *box_build(void *arg)
{
	struct box *b = arg;

	build_gate_enter(b->g, &b->t);
	return NULL;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

Test(build_gate, builds_ahead_take_free_slots_only)
{
	struct build_gate g;
	struct build_ticket a, b, c;

	cr_assert_eq(build_gate_init(&g, 2, NULL), 0);
	cr_assert(build_gate_try(&g, 0, &a));
	cr_assert(build_gate_try(&g, 1, &b));
	cr_assert_not(build_gate_try(&g, 2, &c));
	cr_assert_eq(c.slot, -1);
	cr_assert_null(a.host);
	cr_assert_gt(a.cancel_fd, 0);
	cr_assert_not(readable(a.cancel_fd));
	build_gate_leave(&g, &b);
	cr_assert(build_gate_try(&g, 2, &c));
	cr_assert_eq(c.slot, 1);
	build_gate_leave(&g, &a);
	build_gate_leave(&g, &c);
	build_gate_release(&g);
}

/*
 * Both slots build ahead; a box's build comes: the build ahead of the
 * larger rank (the less likely) is told to stop, and the box gets its
 * slot once it is left. Once the gate closes, builds ahead are refused
 * and those running told to stop.
 */
Test(build_gate, a_box_cancels_the_least_likely_build_ahead, .timeout = 30)
{
	struct build_gate g;
	struct build_ticket a, b, c;
	struct box box;
	pthread_t th;
	struct pollfd p;

	cr_assert_eq(build_gate_init(&g, 2, NULL), 0);
	cr_assert(build_gate_try(&g, 0, &a));
	cr_assert(build_gate_try(&g, 5, &b));
	box.g = &g;
	cr_assert_eq(pthread_create(&th, NULL, box_build, &box), 0);
	/* blocks until the box thread asks rank 5 to stop */
	p = (struct pollfd){ .fd = b.cancel_fd, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, -1), 1);
	cr_assert_not(readable(a.cancel_fd), "the likelier build was stopped");
	build_gate_leave(&g, &b);
	cr_assert_eq(pthread_join(th, NULL), 0);
	cr_assert_eq(box.t.slot, 1);
	cr_assert_eq(box.t.cancel_fd, 0, "a box's build is never cancelled");
	cr_assert_eq(g.cancelled, 1);
	/* a slot freed again is not taken while the box holds its own */
	cr_assert_not(build_gate_try(&g, 1, &c));
	build_gate_close(&g);
	cr_assert(readable(a.cancel_fd));
	build_gate_leave(&g, &box.t);
	cr_assert_not(build_gate_try(&g, 1, &c), "closed");
	build_gate_leave(&g, &a);
	build_gate_release(&g);
}

/* Build hosts are slots after the local ones: their ticket names them. */
Test(build_gate, build_hosts_are_slots)
{
	struct svec hosts = SVEC_INIT;
	struct build_gate g;
	struct build_ticket t[3];
	unsigned long seen;

	svec_push(&hosts, "kb1");
	svec_push(&hosts, "robot@kb2");
	cr_assert_eq(build_gate_init(&g, 1, &hosts), 0);
	cr_assert_eq(g.nr, 3);
	build_gate_enter(&g, &t[0]);
	cr_assert_null(t[0].host);
	cr_assert(build_gate_try(&g, 0, &t[1]));
	cr_assert_str_eq(t[1].host, "kb1");
	build_gate_enter(&g, &t[2]);
	cr_assert_str_eq(t[2].host, "robot@kb2");
	/* a waiter for a free slot wakes when one is left */
	seen = build_gate_epoch(&g);
	build_gate_leave(&g, &t[1]);
	cr_assert(build_gate_wait(&g, &seen));
	cr_assert_neq(seen, 0);
	build_gate_leave(&g, &t[0]);
	build_gate_leave(&g, &t[2]);
	build_gate_release(&g);
	svec_clear(&hosts);
}
