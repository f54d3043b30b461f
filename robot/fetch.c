// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fetch adapter (libgit2): one branch of a remote into a local ref,
 * with its tags. See fetch.h.
 */
#include <git2.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "fetch.h"
#include "proc.h"
#include "sbuf.h"

struct fetch_cb {
	const struct rb_fetch_opts *o;
	char *host_port; /* "host" or "[host]:port", for known_hosts */
	unsigned cred_try; /* which credential to offer next */
	char *why; /* our own reason for a refused connection */
	int last_pct; /* progress shown so far */
	unsigned last_stage;
	bool progress_shown;
};

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

char *rb_base64(const void *data, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *q = out;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		*q++ = tab[p[i] >> 2];
		*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*q++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*q++ = tab[p[i + 2] & 63];
	}
	if (i < len) {
		*q++ = tab[p[i] >> 2];
		if (i + 1 < len) {
			*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*q++ = tab[(p[i + 1] & 15) << 2];
		} else {
			*q++ = tab[(p[i] & 3) << 4];
			*q++ = '=';
		}
		*q++ = '=';
	}
	*q = '\0';
	return out;
}

static char *home_file(const char *name)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	return xstrfmt("%s/%s", home, name);
}

/*
 * The host (and port) of an ssh URL as known_hosts names it: "host", or
 * "[host]:port" for another port than 22. NULL for other URLs.
 */
static char *ssh_host_port(const char *url)
{
	const char *p, *end, *colon;
	char *host, *ret;
	long port = 22;

	if (rb_starts_with(url, "ssh://") ||
	    rb_starts_with(url, "ssh+git://") ||
	    rb_starts_with(url, "git+ssh://")) {
		p = strstr(url, "://") + 3;
		end = p + strcspn(p, "/");
		if (memchr(p, '@', (size_t)(end - p)))
			p = (const char *)memchr(p, '@', (size_t)(end - p)) + 1;
		if (*p == '[') {
			const char *rb = memchr(p, ']', (size_t)(end - p));

			if (!rb)
				return NULL;
			host = xstrndup(p + 1, (size_t)(rb - p - 1));
			colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		} else {
			colon = memchr(p, ':', (size_t)(end - p));
			host = xstrndup(p, (size_t)((colon ? colon : end) - p));
		}
		if (colon) {
			char *num =
				xstrndup(colon + 1, (size_t)(end - colon - 1));

			if (*num && rb_parse_long(num, &port) < 0)
				port = -1;
			free(num);
		}
	} else if (!strstr(url, "://") && strchr(url, ':') &&
		   (!strchr(url, '/') || strchr(url, ':') < strchr(url, '/'))) {
		/* scp-like user@host:path */
		p = strchr(url, '@');
		p = p && p < strchr(url, ':') ? p + 1 : url;
		host = xstrndup(p, (size_t)(strchr(url, ':') - p));
	} else {
		return NULL;
	}
	if (port <= 0 || port > 65535 || !*host) {
		free(host);
		return NULL;
	}
	ret = port == 22 ? xstrdup(host) : xstrfmt("[%s]:%ld", host, port);
	free(host);
	return ret;
}

/*
 * Is this raw host key listed for the host in the known_hosts file?
 * ssh-keygen -F finds the host's lines (hashed names too); we compare the
 * keys.
 */
static int known_host(struct fetch_cb *cb, const git_cert_hostkey *hk)
{
	char *file = cb->o->known_hosts ? xstrdup(cb->o->known_hosts) :
					  home_file(".ssh/known_hosts");
	const char *argv[] = { "ssh-keygen", "-F", cb->host_port,
			       "-f",	     file, NULL };
	struct sbuf out = SBUF_INIT_MAX(1 << 20), err = SBUF_INIT_MAX(4096);
	struct proc_opts po = {
		.argv = argv, .out = &out, .err = &err, .timeout = 30
	};
	struct proc_result pr;
	char *b64 = NULL, *line, *save = NULL;
	int ok = 0;

	if (!(hk->type & GIT_CERT_SSH_RAW)) {
		cb->why = xstrdup("libgit2 gave no raw host key to check");
		goto out;
	}
	if (!rb_file_exists(file)) {
		cb->why = xstrfmt("no known_hosts file '%s' to check the host "
				  "key of '%s' against",
				  file, cb->host_port);
		goto out;
	}
	if (proc_run(&po, &pr) < 0) {
		cb->why = xstrfmt("cannot run ssh-keygen: %s", rb_errmsg());
		goto out;
	}
	b64 = rb_base64(hk->hostkey, hk->hostkey_len);
	for (line = strtok_r(out.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { NULL }, *s2 = NULL, *w;
		int n = 0;

		if (*line == '#')
			continue;
		for (w = strtok_r(line, " \t", &s2); w && n < 4;
		     w = strtok_r(NULL, " \t", &s2))
			f[n++] = w;
		/* "@revoked host type key" and "host type key" */
		if (n >= 4 && !strcmp(f[0], "@revoked") && !strcmp(f[3], b64)) {
			ok = 0;
			cb->why = xstrfmt("the host key of '%s' is revoked in "
					  "'%s'",
					  cb->host_port, file);
			goto out;
		}
		if (n >= 3 && *f[0] != '@' && !strcmp(f[2], b64))
			ok = 1;
	}
	if (!ok)
		cb->why = xstrfmt("the host key of '%s' is not in '%s' (add "
				  "it with ssh-keyscan after checking it)",
				  cb->host_port, file);
out:
	free(b64);
	free(file);
	sbuf_release(&out);
	sbuf_release(&err);
	return ok;
}

static int cert_check(git_cert *cert, int valid, const char *host,
		      void *payload)
{
	struct fetch_cb *cb = payload;

	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH; /* TLS: libgit2's own verdict */
	if (!cb->host_port)
		cb->host_port = xstrdup(host);
	/* libgit2 hands the hostkey struct as its first member */
	if (known_host(cb, (const git_cert_hostkey *)(const void *)cert))
		return 0;
	return GIT_ECERTIFICATE;
}

static int credentials(git_credential **out, const char *url,
		       const char *user_from_url, unsigned int allowed,
		       void *payload)
{
	struct fetch_cb *cb = payload;
	static const char *const keys[] = { ".ssh/id_ed25519", ".ssh/id_ecdsa",
					    ".ssh/id_rsa" };
	struct passwd *pw = getpwuid(getuid());
	const char *user = user_from_url && *user_from_url ?
				   user_from_url :
				   (pw ? pw->pw_name : "git");
	unsigned t;

	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out, user);
	if (!(allowed & GIT_CREDENTIAL_SSH_KEY)) {
		free(cb->why);
		cb->why = xstrfmt("'%s' asks for a login the robot does not "
				  "have (only ssh keys are offered)",
				  url);
		return GIT_EAUTH;
	}
	/* offer, in turn: the lab's key, the agent, the usual key files */
	for (t = cb->cred_try++; t < 2 + RB_ARRAY_SIZE(keys);
	     t = cb->cred_try++) {
		if (t == 0 && cb->o->ssh_key)
			return git_credential_ssh_key_new(out, user, NULL,
							  cb->o->ssh_key, NULL);
		if (t == 1 && getenv("SSH_AUTH_SOCK"))
			return git_credential_ssh_key_from_agent(out, user);
		if (t >= 2) {
			char *k = home_file(keys[t - 2]);

			if (rb_file_exists(k)) {
				int r = git_credential_ssh_key_new(
					out, user, NULL, k, NULL);

				free(k);
				return r;
			}
			free(k);
		}
	}
	free(cb->why);
	cb->why = xstrfmt("no ssh key was accepted for '%s'", user);
	return GIT_EAUTH;
}

static void show(struct fetch_cb *cb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void show(struct fetch_cb *cb, const char *fmt, ...)
{
	va_list ap;

	fputs("\r\033[Krobot: fetching: ", cb->o->progress);
	va_start(ap, fmt);
	vfprintf(cb->o->progress, fmt, ap);
	va_end(ap);
	fflush(cb->o->progress);
	cb->progress_shown = true;
}

static int transfer(const git_indexer_progress *p, void *payload)
{
	struct fetch_cb *cb = payload;
	bool deltas = p->received_objects == p->total_objects &&
		      p->total_deltas > 0;
	unsigned stage = deltas ? 2 : 1;
	int pct;

	if (!cb->o->progress || !p->total_objects)
		return 0;
	if (stage == 1)
		pct = (int)(100.0 * p->received_objects / p->total_objects);
	else
		pct = (int)(100.0 * p->indexed_deltas / p->total_deltas);
	if (pct == cb->last_pct && stage == cb->last_stage)
		return 0;
	if (stage == 2 && cb->last_stage == 1 && cb->last_pct < 100)
		show(cb, "receiving objects 100%% (%u/%u), %.1f MiB",
		     p->received_objects, p->total_objects,
		     (double)p->received_bytes / (1 << 20));
	cb->last_pct = pct;
	cb->last_stage = stage;
	if (stage == 1)
		show(cb, "receiving objects %3d%% (%u/%u), %.1f MiB", pct,
		     p->received_objects, p->total_objects,
		     (double)p->received_bytes / (1 << 20));
	else
		show(cb, "resolving deltas %3d%% (%u/%u)", pct,
		     p->indexed_deltas, p->total_deltas);
	return 0;
}

static int open_or_init(git_repository **repo, const char *path)
{
	struct stat sb;

	if (stat(path, &sb) < 0 && errno == ENOENT) {
		if (git_repository_init(repo, path, 1) < 0)
			return rb_error("cannot create repository '%s': %s",
					path, git_msg());
		return 0;
	}
	if (git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return rb_error("cannot open repository '%s': %s", path,
				git_msg());
	return 0;
}

/*
 * What a fetch of o checks before it touches anything: the names, and
 * the CA set (process-wide). *bref gets "refs/heads/BRANCH" (free it,
 * also on failure). 0 or -1.
 */
static int fetch_prepare(const struct rb_fetch_opts *o, char **bref)
{
	int valid = 0;

	*bref = xstrfmt("refs/heads/%s", o->branch);
	if (git_reference_name_is_valid(&valid, *bref) < 0 || !valid ||
	    (o->ref &&
	     (git_reference_name_is_valid(&valid, o->ref) < 0 || !valid)))
		return rb_error("cannot fetch '%s' from '%s': not a valid "
				"branch or ref name",
				o->branch, o->url);
	if (o->ca_file && git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS,
					   o->ca_file, NULL) < 0)
		return rb_error("cannot use the CA file '%s': %s", o->ca_file,
				git_msg());
	return 0;
}

/*
 * The remote of o, owned by repo (detached when repo is NULL), and the
 * callbacks' state in cb (its host_port: free it). 0 or -1.
 */
static int remote_new(git_remote **remote, git_repository *repo,
		      const struct rb_fetch_opts *o, struct fetch_cb *cb)
{
	git_remote_create_options ro;

	/*
	 * An anonymous remote, the URL as the lab wrote it: no insteadOf
	 * rewriting (libgit2 1.5 leaks pcre2 match data looking for it).
	 */
	git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	ro.repository = repo;
	ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
		   GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(remote, o->url, &ro) < 0)
		return rb_error("cannot fetch '%s' from '%s': %s", o->branch,
				o->url, git_msg());
	cb->o = o;
	cb->last_pct = -1;
	cb->host_port = ssh_host_port(o->url);
	return 0;
}

int rb_fetch_check(const struct rb_fetch_opts *o)
{
	git_remote *remote = NULL;
	git_remote_callbacks rc;
	const git_remote_head **heads;
	struct fetch_cb cb;
	size_t nheads, i;
	char *bref = NULL;
	int ret = -1;

	memset(&cb, 0, sizeof(cb));
	git_libgit2_init();
	if (fetch_prepare(o, &bref) < 0 ||
	    remote_new(&remote, NULL, o, &cb) < 0)
		goto out;
	git_remote_init_callbacks(&rc, GIT_REMOTE_CALLBACKS_VERSION);
	rc.payload = &cb;
	rc.credentials = credentials;
	rc.certificate_check = cert_check;
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &rc, NULL, NULL) <
		    0 ||
	    git_remote_ls(&heads, &nheads, remote) < 0) {
		rb_error("cannot fetch '%s' from '%s': %s", o->branch, o->url,
			 cb.why ? cb.why : git_msg());
		goto out;
	}
	for (i = 0; i < nheads; i++)
		if (!strcmp(heads[i]->name, bref))
			break;
	if (i == nheads) {
		rb_error("cannot fetch '%s' from '%s': the remote has no such "
			 "branch",
			 o->branch, o->url);
		goto out;
	}
	ret = 0;
out:
	git_remote_free(remote);
	git_libgit2_shutdown();
	free(cb.host_port);
	free(cb.why);
	free(bref);
	return ret;
}

int rb_fetch(const struct rb_fetch_opts *o, struct rb_fetch_result *res)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_fetch_options fo;
	git_oid id;
	struct fetch_cb cb;
	struct sbuf spec = SBUF_INIT;
	char *specs[1];
	git_strarray refspecs = { specs, 1 };
	const git_indexer_progress *st;
	const git_remote_head **heads;
	size_t nheads, i;
	char *bref = NULL;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	memset(&cb, 0, sizeof(cb));
	git_libgit2_init();
	if (fetch_prepare(o, &bref) < 0 || open_or_init(&repo, o->path) < 0)
		goto out;
	if (git_reference_name_to_id(&id, repo, o->ref) == 0) {
		res->had_old = true;
		memcpy(res->old, id.id, RB_OID_RAWSZ);
	}
	if (remote_new(&remote, repo, o, &cb) < 0)
		goto out;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks.payload = &cb;
	fo.callbacks.credentials = credentials;
	fo.callbacks.certificate_check = cert_check;
	fo.callbacks.transfer_progress = transfer;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo.update_fetchhead = 0;
	sbuf_addf(&spec, "+%s:%s", bref, o->ref);
	specs[0] = spec.buf;
	if (git_remote_fetch(remote, &refspecs, &fo, "robot: fetch") < 0) {
		if (cb.progress_shown)
			fputc('\n', o->progress);
		rb_error("cannot fetch '%s' from '%s': %s", o->branch, o->url,
			 cb.why ? cb.why : git_msg());
		goto out;
	}
	if (cb.progress_shown) {
		fputs("\r\033[K", o->progress);
		fflush(o->progress);
	}
	st = git_remote_stats(remote);
	res->objects = st->received_objects;
	res->bytes = st->received_bytes;
	/* the advertised refs stay known after the fetch disconnected */
	if (git_remote_ls(&heads, &nheads, remote) < 0) {
		rb_error("cannot fetch '%s' from '%s': %s", o->branch, o->url,
			 git_msg());
		goto out;
	}
	for (i = 0; i < nheads; i++)
		if (!strcmp(heads[i]->name, bref))
			break;
	if (i == nheads || git_reference_name_to_id(&id, repo, o->ref) < 0) {
		rb_error("cannot fetch '%s' from '%s': the remote has no such "
			 "branch",
			 o->branch, o->url);
		goto out;
	}
	if (!git_oid_equal(&id, &heads[i]->oid)) {
		rb_error("cannot fetch '%s' from '%s': '%s' was not updated",
			 o->branch, o->url, o->ref);
		goto out;
	}
	memcpy(res->head, id.id, RB_OID_RAWSZ);
	ret = 0;
out:
	git_remote_free(remote);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(cb.host_port);
	free(cb.why);
	free(bref);
	sbuf_release(&spec);
	return ret;
}
