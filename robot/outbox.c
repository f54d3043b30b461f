// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outbox: drafted, sent and failed mails with their state, in files.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "robot.h"
#include "outbox.h"
#include "report.h"
#include "sbuf.h"

static const char *const state_names[] = {
	[RB_OUTBOX_DRAFTED] = "drafted",
	[RB_OUTBOX_SENDING] = "sending",
	[RB_OUTBOX_SENT] = "sent",
	[RB_OUTBOX_FAILED] = "failed",
};

const char *rb_outbox_state_name(enum rb_outbox_state s)
{
	return s < RB_ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

int rb_outbox_open(struct rb_outbox *ob, const char *dir)
{
	if (rb_mkdir_p(dir) < 0)
		return -1;
	ob->dir = xstrdup(dir);
	return 0;
}

void rb_outbox_release(struct rb_outbox *ob)
{
	free(ob->dir);
	ob->dir = NULL;
}

/* One line, no control characters: what a state file field can hold. */
static void one_line(struct sbuf *out, const char *s)
{
	for (; *s; s++)
		sbuf_addch(out, (unsigned char)*s < 0x20 ? ' ' : *s);
}

int rb_outbox_key(struct sbuf *out, const char *culprit, const char *stat,
		  const char *job)
{
	if (!culprit || !*culprit || !stat || !*stat || !job || !*job)
		return rb_error("a mail key needs a culprit, a stat and a job");
	one_line(out, culprit);
	sbuf_addch(out, '/');
	one_line(out, stat);
	sbuf_addch(out, '/');
	one_line(out, job);
	return 0;
}

/* An id is a file name: the characters check_message_id() allows. */
static int check_id(const char *id)
{
	const char *p;

	if (!*id || *id == '.' || strlen(id) > 250)
		goto bad;
	for (p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._+=@-", *p)))
			goto bad;
	return 0;
bad:
	return rb_error("invalid outbox id '%s'", id);
}

static char *path_of(const struct rb_outbox *ob, const char *id,
		     const char *ext)
{
	return xstrfmt("%s/%s.%s", ob->dir, id, ext);
}

static int lock_outbox(const struct rb_outbox *ob)
{
	char *path = xstrfmt("%s/.lock", ob->dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		rb_error("cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		rb_error("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	return fd;
}

static void unlock_outbox(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}

void rb_outbox_entry_release(struct rb_outbox_entry *e)
{
	free(e->id);
	free(e->key);
	free(e->time);
	free(e->reason);
	memset(e, 0, sizeof(*e));
}

void rb_outbox_entries_free(struct rb_outbox_entry *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		rb_outbox_entry_release(&v[i]);
	free(v);
}

static int parse_state(struct rb_outbox_entry *e, const char *path,
		       const char *text)
{
	const char *p = text, *l;
	unsigned lineno = 0;
	size_t n;

	while (rb_next_line(&p, &l, &n)) {
		char *line = xstrndup(l, n), *colon = strchr(line, ':');
		const char *v;
		int ret = 0;

		lineno++;
		if (!colon || colon[1] != ' ') {
			if (*line)
				ret = rb_error(
					"%s:%u:1: expected 'name: value'", path,
					lineno);
			goto next;
		}
		*colon = '\0';
		v = colon + 2;
		if (!strcmp(line, "state")) {
			size_t i;

			for (i = 0; i < RB_ARRAY_SIZE(state_names); i++)
				if (!strcmp(v, state_names[i]))
					break;
			if (i == RB_ARRAY_SIZE(state_names))
				ret = rb_error("%s:%u:8: unknown state '%s'",
					       path, lineno, v);
			else
				e->state = (enum rb_outbox_state)i;
		} else if (!strcmp(line, "key")) {
			free(e->key);
			e->key = xstrdup(v);
		} else if (!strcmp(line, "time")) {
			free(e->time);
			e->time = xstrdup(v);
		} else if (!strcmp(line, "reason")) {
			free(e->reason);
			e->reason = xstrdup(v);
		} else if (!strcmp(line, "attempts")) {
			long a;

			if (rb_parse_long(v, &a) < 0 || a < 0)
				ret = rb_error("%s:%u:11: invalid attempts "
					       "'%s'",
					       path, lineno, v);
			else
				e->attempts = (unsigned)a;
		}
next:
		free(line);
		if (ret)
			return -1;
	}
	return 0;
}

/* Load id's state; a mail whose state file is missing counts as drafted. */
static int load_entry(const struct rb_outbox *ob, const char *id,
		      struct rb_outbox_entry *e)
{
	char *eml = path_of(ob, id, "eml"), *st = path_of(ob, id, "state");
	char *text = NULL;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	e->id = xstrdup(id);
	e->key = xstrdup("");
	e->time = xstrdup("");
	e->reason = xstrdup("");
	e->state = RB_OUTBOX_DRAFTED;
	if (!rb_file_exists(eml)) {
		rb_error("no mail '%s' in the outbox '%s'", id, ob->dir);
		goto out;
	}
	if (rb_file_exists(st)) {
		if (rb_read_file(st, &text, NULL) < 0 ||
		    parse_state(e, st, text) < 0)
			goto out;
	}
	ret = 0;
out:
	if (ret)
		rb_outbox_entry_release(e);
	free(text);
	free(eml);
	free(st);
	return ret;
}

static int save_entry(const struct rb_outbox *ob, struct rb_outbox_entry *e)
{
	struct sbuf sb = SBUF_INIT;
	char *path = path_of(ob, e->id, "state");
	char now[32];
	int ret;

	rb_utc_stamp(now, sizeof(now));
	free(e->time);
	e->time = xstrdup(now);
	sbuf_addf(&sb, "state: %s\nkey: ", rb_outbox_state_name(e->state));
	one_line(&sb, e->key);
	sbuf_addf(&sb, "\ntime: %s\nattempts: %u\n", e->time, e->attempts);
	if (*e->reason) {
		sbuf_addstr(&sb, "reason: ");
		one_line(&sb, e->reason);
		sbuf_addch(&sb, '\n');
	}
	ret = rb_write_file_atomic(path, sb.buf, sb.len);
	sbuf_release(&sb);
	free(path);
	return ret;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct rb_outbox_entry *)a)->id,
		      ((const struct rb_outbox_entry *)b)->id);
}

static int list_locked(const struct rb_outbox *ob, struct rb_outbox_entry **v,
		       size_t *nr)
{
	struct rb_outbox_entry *out = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d = opendir(ob->dir);

	*v = NULL;
	*nr = 0;
	if (!d)
		return rb_error("cannot open outbox '%s': %s", ob->dir,
				strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *id;

		if (len <= 4 || de->d_name[0] == '.' ||
		    !rb_ends_with(de->d_name, ".eml"))
			continue;
		id = xstrndup(de->d_name, len - 4);
		RB_ALLOC_GROW(out, n + 1, alloc);
		if (load_entry(ob, id, &out[n]) < 0) {
			free(id);
			closedir(d);
			rb_outbox_entries_free(out, n);
			return -1;
		}
		free(id);
		n++;
	}
	closedir(d);
	if (n)
		qsort(out, n, sizeof(*out), cmp_entry);
	*v = out;
	*nr = n;
	return 0;
}

int rb_outbox_list(struct rb_outbox *ob, struct rb_outbox_entry **v, size_t *nr)
{
	int fd = lock_outbox(ob), ret;

	if (fd < 0)
		return -1;
	ret = list_locked(ob, v, nr);
	unlock_outbox(fd);
	return ret;
}

int rb_outbox_get(struct rb_outbox *ob, const char *id,
		  struct rb_outbox_entry *e)
{
	if (check_id(id) < 0)
		return -1;
	return load_entry(ob, id, e);
}

int rb_outbox_read(struct rb_outbox *ob, const char *id, char **msg,
		   size_t *len)
{
	char *path;
	int ret;

	if (check_id(id) < 0)
		return -1;
	path = path_of(ob, id, "eml");
	if (!rb_file_exists(path)) {
		free(path);
		return rb_error("no mail '%s' in the outbox '%s'", id, ob->dir);
	}
	ret = rb_read_file(path, msg, len);
	free(path);
	return ret;
}

/* The id of a mail: its Message-ID without the angle brackets. */
static char *id_of(const char *msg, size_t len)
{
	char *mid = rb_mail_header_get(msg, len, "Message-ID"), *id;
	size_t n;

	if (!mid) {
		rb_error("the mail has no 'Message-ID' header");
		return NULL;
	}
	n = strlen(mid);
	if (n < 3 || mid[0] != '<' || mid[n - 1] != '>') {
		rb_error("invalid message id '%s'", mid);
		free(mid);
		return NULL;
	}
	id = xstrndup(mid + 1, n - 2);
	free(mid);
	if (check_id(id) < 0) {
		free(id);
		return NULL;
	}
	return id;
}

static long find_key(const struct rb_outbox_entry *v, size_t nr,
		     const char *key)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (*key && !strcmp(v[i].key, key))
			return (long)i;
	return -1;
}

int rb_outbox_add(struct rb_outbox *ob, const char *key, const char *msg,
		  size_t len, char **id_out, bool *existing)
{
	struct rb_outbox_entry *v = NULL, e = { 0 };
	struct rb_envelope env = RB_ENVELOPE_INIT;
	char *id = NULL, *eml = NULL;
	size_t nr = 0;
	long at;
	int fd = -1, ret = -1;

	*id_out = NULL;
	*existing = false;
	if (!key || !*key)
		return rb_error("a mail needs a key in the outbox");
	/* only a mail that could be sent goes in */
	if (rb_mail_envelope(&env, msg, len) < 0)
		return -1;
	id = id_of(msg, len);
	if (!id)
		goto out;
	fd = lock_outbox(ob);
	if (fd < 0 || list_locked(ob, &v, &nr) < 0)
		goto out;
	at = find_key(v, nr, key);
	if (at >= 0) {
		*id_out = xstrdup(v[at].id);
		*existing = true;
		ret = 0;
		goto out;
	}
	eml = path_of(ob, id, "eml");
	if (rb_file_exists(eml)) {
		rb_error("the outbox '%s' holds another mail with id '%s'",
			 ob->dir, id);
		goto out;
	}
	if (rb_write_file_atomic(eml, msg, len) < 0)
		goto out;
	e.id = xstrdup(id);
	e.key = xstrdup(key);
	e.reason = xstrdup("");
	e.time = xstrdup("");
	e.state = RB_OUTBOX_DRAFTED;
	if (save_entry(ob, &e) < 0)
		goto out;
	*id_out = id;
	id = NULL;
	ret = 0;
out:
	unlock_outbox(fd);
	rb_outbox_entry_release(&e);
	rb_outbox_entries_free(v, nr);
	rb_envelope_release(&env);
	free(eml);
	free(id);
	return ret;
}

int rb_outbox_send(struct rb_outbox *ob, const char *id,
		   rb_outbox_deliver_fn deliver, void *ctx, unsigned flags,
		   char **sent_as, char **sent_time)
{
	struct rb_outbox_entry *v = NULL, *e = NULL;
	char *msg = NULL;
	size_t nr = 0, len = 0, i;
	int fd, ret = -1;

	if (sent_as)
		*sent_as = NULL;
	if (sent_time)
		*sent_time = NULL;
	if (check_id(id) < 0)
		return -1;
	fd = lock_outbox(ob);
	if (fd < 0)
		return -1;
	/* under the lock: what another robot did is on disk now */
	if (list_locked(ob, &v, &nr) < 0)
		goto out;
	for (i = 0; i < nr; i++)
		if (!strcmp(v[i].id, id))
			e = &v[i];
	if (!e) {
		rb_error("no mail '%s' in the outbox '%s'", id, ob->dir);
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (v[i].state != RB_OUTBOX_SENT ||
		    (&v[i] != e && (!*e->key || strcmp(v[i].key, e->key))))
			continue;
		if (sent_as)
			*sent_as = xstrdup(v[i].id);
		if (sent_time)
			*sent_time = xstrdup(v[i].time);
		ret = 1;
		goto out;
	}
	if (e->state == RB_OUTBOX_SENDING && !(flags & RB_OUTBOX_FORCE)) {
		rb_error("mail '%s' may have been sent already: an attempt was "
			 "interrupted at %s; check the recipients' mail and "
			 "force to send it again",
			 id, e->time);
		goto out;
	}
	if (rb_outbox_read(ob, id, &msg, &len) < 0)
		goto out;

	/* written before the SMTP transaction: a crash leaves "sending" */
	e->state = RB_OUTBOX_SENDING;
	e->attempts++;
	free(e->reason);
	e->reason = xstrdup("");
	if (save_entry(ob, e) < 0)
		goto out;

	if (deliver(ctx, msg, len) < 0) {
		char *why = xstrdup(rb_errmsg());

		e->state = RB_OUTBOX_FAILED;
		free(e->reason);
		e->reason = why;
		if (save_entry(ob, e) < 0)
			rb_error_prefix("mail '%s' failed (%s), and its state "
					"could not be saved",
					id, why);
		else
			rb_error("%s", why);
		goto out;
	}
	e->state = RB_OUTBOX_SENT;
	if (save_entry(ob, e) < 0) {
		rb_error_prefix("mail '%s' was sent but its state could not be "
				"saved",
				id);
		goto out;
	}
	ret = 0;
out:
	unlock_outbox(fd);
	rb_outbox_entries_free(v, nr);
	free(msg);
	return ret;
}
