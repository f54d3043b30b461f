// SPDX-License-Identifier: GPL-2.0-only
/* Build slots shared by a box's builds and builds ahead (build-gate.h). */
#include <sys/eventfd.h>
#include <unistd.h>

#include "robot.h"
#include "build-gate.h"
#include "svec.h"

int build_gate_init(struct build_gate *g, int local, const struct svec *hosts)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->local = local < 1 ? 1 : local;
	g->hosts = hosts;
	g->nr = g->local + (hosts ? (int)hosts->nr : 0);
	g->slot = xcalloc((size_t)g->nr, sizeof(*g->slot));
	for (i = 0; i < g->nr; i++) {
		g->slot[i].efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (g->slot[i].efd < 0) {
			int e = errno;

			while (i-- > 0)
				close(g->slot[i].efd);
			free(g->slot);
			g->slot = NULL;
			return rb_error("eventfd: %s", strerror(e));
		}
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	return 0;
}

void build_gate_release(struct build_gate *g)
{
	int i;

	if (!g->slot)
		return;
	for (i = 0; i < g->nr; i++)
		close(g->slot[i].efd);
	free(g->slot);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	memset(g, 0, sizeof(*g));
}

static void drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) > 0)
		;
}

static void signal_cancel(struct build_gate_slot *s)
{
	uint64_t one = 1;

	if (s->cancelling)
		return;
	s->cancelling = true;
	if (write(s->efd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		RB_BUG("eventfd write: %s", strerror(errno));
}

/* the free slot to take, or -1; this machine first */
static int free_slot(const struct build_gate *g)
{
	int i;

	for (i = 0; i < g->nr; i++)
		if (!g->slot[i].busy)
			return i;
	return -1;
}

static void take(struct build_gate *g, int i, bool ahead, unsigned rank,
		 struct build_ticket *t)
{
	struct build_gate_slot *s = &g->slot[i];

	s->busy = true;
	s->ahead = ahead;
	s->cancelling = false;
	s->rank = rank;
	drain(s->efd);
	t->slot = i;
	t->host = i < g->local ? NULL : g->hosts->v[i - g->local];
	t->cancel_fd = ahead ? s->efd : 0;
}

void build_gate_enter(struct build_gate *g, struct build_ticket *t)
{
	int i;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		int victim = -1;

		i = free_slot(g);
		if (i >= 0)
			break;
		for (i = 0; i < g->nr; i++)
			if (g->slot[i].busy && g->slot[i].ahead &&
			    (victim < 0 ||
			     g->slot[i].rank > g->slot[victim].rank))
				victim = i;
		/* one cancel in flight is enough: its slot comes back */
		if (victim >= 0 && !g->slot[victim].cancelling) {
			bool any = false;

			for (i = 0; i < g->nr; i++)
				any |= g->slot[i].busy && g->slot[i].cancelling;
			if (!any) {
				signal_cancel(&g->slot[victim]);
				g->cancelled++;
			}
		}
		pthread_cond_wait(&g->cv, &g->mu);
	}
	take(g, i, false, 0, t);
	pthread_mutex_unlock(&g->mu);
}

bool build_gate_try(struct build_gate *g, unsigned rank, struct build_ticket *t)
{
	int i;

	pthread_mutex_lock(&g->mu);
	i = g->closed ? -1 : free_slot(g);
	if (i >= 0)
		take(g, i, true, rank, t);
	pthread_mutex_unlock(&g->mu);
	if (i < 0)
		t->slot = -1;
	return i >= 0;
}

void build_gate_leave(struct build_gate *g, struct build_ticket *t)
{
	if (t->slot < 0)
		return;
	pthread_mutex_lock(&g->mu);
	g->slot[t->slot].busy = false;
	g->slot[t->slot].cancelling = false;
	g->epoch++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	t->slot = -1;
	t->cancel_fd = 0;
}

unsigned long build_gate_epoch(struct build_gate *g)
{
	unsigned long e;

	pthread_mutex_lock(&g->mu);
	e = g->epoch;
	pthread_mutex_unlock(&g->mu);
	return e;
}

bool build_gate_wait(struct build_gate *g, unsigned long *seen)
{
	bool open;

	pthread_mutex_lock(&g->mu);
	while (g->epoch == *seen && !g->closed)
		pthread_cond_wait(&g->cv, &g->mu);
	*seen = g->epoch;
	open = !g->closed;
	pthread_mutex_unlock(&g->mu);
	return open;
}

void build_gate_poke(struct build_gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->epoch++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void build_gate_close(struct build_gate *g)
{
	int i;

	pthread_mutex_lock(&g->mu);
	g->closed = true;
	for (i = 0; i < g->nr; i++)
		if (g->slot[i].busy && g->slot[i].ahead)
			signal_cancel(&g->slot[i]);
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}
