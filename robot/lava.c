// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LAVA REST API v0.2 client (lava.h).
 */
#include <curl/curl.h>
#include <jansson.h>

#include "robot.h"
#include "lab.h"
#include "lava.h"
#include "sbuf.h"
#include "svec.h"
#include "ytree.h"

/* The largest answer read (a page of devices, a job's tests). */
#define LAVA_ANSWER_MAX (8u << 20)
/* Pages of a listing followed at most. */
#define LAVA_MAX_PAGES 100

int lava_open(struct lava_client *c, const struct lab_lava *cfg)
{
	size_t n;

	memset(c, 0, sizeof(*c));
	if (!cfg->url)
		return rb_error("the lab has no lava: section");
	if (cfg->token_env && cfg->token_file)
		return rb_error("lava: give token_env or token_file, not both");
	if (cfg->token_env) {
		const char *t = getenv(cfg->token_env);

		if (!t || !*t)
			return rb_error("lava: the environment variable %s "
					"(token_env) is not set",
					cfg->token_env);
		if (strpbrk(t, "\n\r"))
			return rb_error("lava: %s holds a newline",
					cfg->token_env);
		c->token = xstrdup(t);
	} else if (cfg->token_file) {
		if (rb_read_secret_file(cfg->token_file, "lava token",
					&c->token) < 0)
			return -1;
	} else {
		return rb_error("lava: no token_env or token_file (the token "
				"never goes into the lab file)");
	}
	c->url = xstrdup(cfg->url);
	n = strlen(c->url);
	while (n && c->url[n - 1] == '/')
		c->url[--n] = '\0';
	c->timeout = 60;
	return 0;
}

void lava_close(struct lava_client *c)
{
	free(c->url);
	if (c->token)
		explicit_bzero(c->token, strlen(c->token));
	free(c->token);
	memset(c, 0, sizeof(*c));
}

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct sbuf *sb = arg;
	size_t n = size * nmemb;

	if (sb->len + n > LAVA_ANSWER_MAX)
		return 0;
	sbuf_add(sb, ptr, n);
	return n;
}

/* The message of an error answer: DRF's {"detail": ...}, else its text. */
static void answer_message(const char *body, struct sbuf *out)
{
	json_t *j = json_loads(body, 0, NULL);
	const char *d = j ? json_string_value(json_object_get(j, "detail")) :
			    NULL;

	if (!d && j)
		d = json_string_value(json_object_get(j, "message"));
	sbuf_addstr(out, d ? d : body);
	json_decref(j);
	sbuf_rtrim(out);
	if (out->len > 200) {
		sbuf_setlen(out, 200);
		sbuf_addstr(out, "...");
	}
}

/*
 * One request; path starts with "/api/" or is a full URL of the server
 * (a listing's "next"). body (JSON) makes it a POST. The answer's text in
 * *ans. -1 with infra set for the lab's failures.
 */
static int request_text(struct lava_client *c, const char *path,
			const char *body, struct sbuf *ans)
{
	struct sbuf msg = SBUF_INIT;
	struct curl_slist *hdr = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url, *auth;
	long status = 0;
	CURL *curl;
	CURLcode rc;
	int ret = -1;

	sbuf_reset(ans);
	c->infra = false;
	url = rb_starts_with(path, "http") ? xstrdup(path) :
					     xstrfmt("%s%s", c->url, path);
	auth = xstrfmt("Authorization: Token %s", c->token);
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl = curl_easy_init();
	if (!curl)
		rb_die("out of memory initialising libcurl");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, ans);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, c->timeout);
	if (body)
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		c->infra = true;
		rb_error("LAVA server %s does not answer: %s", c->url,
			 *errbuf ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	if (status >= 500 || status == 0) {
		c->infra = true;
		answer_message(ans->buf, &msg);
		rb_error("LAVA server %s answers HTTP %ld: %s", c->url, status,
			 msg.buf);
		goto out;
	}
	if (status == 401 || status == 403) {
		answer_message(ans->buf, &msg);
		rb_error("LAVA server %s refuses the token (HTTP %ld: %s)",
			 c->url, status, msg.buf);
		goto out;
	}
	if (status >= 300) {
		answer_message(ans->buf, &msg);
		rb_error("LAVA server %s: %s: HTTP %ld: %s", c->url, path,
			 status, msg.buf);
		goto out;
	}
	ret = 0;
out:
	curl_easy_cleanup(curl);
	curl_slist_free_all(hdr);
	free(url);
	free(auth);
	sbuf_release(&msg);
	return ret;
}

/* request_text with a JSON answer in *out. */
static int request(struct lava_client *c, const char *path, const char *body,
		   json_t **out)
{
	struct sbuf ans = SBUF_INIT;
	int ret = -1;

	*out = NULL;
	if (request_text(c, path, body, &ans) < 0)
		goto out;
	*out = json_loads(ans.buf, 0, NULL);
	if (!*out) {
		c->infra = true;
		rb_error("LAVA server %s: %s: the answer is not JSON", c->url,
			 path);
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&ans);
	return ret;
}

int lava_check(struct lava_client *c, const struct lab_lava *cfg,
	       struct lava_pool *pool)
{
	json_t *j = NULL;
	char *path;
	int pages = 0, ret = -1;

	memset(pool, 0, sizeof(*pool));
	path = xstrfmt("/api/v0.2/devicetypes/%s/", cfg->device_type);
	if (request(c, path, NULL, &j) < 0) {
		if (!c->infra && strstr(rb_errmsg(), "HTTP 404"))
			rb_error("LAVA server %s has no device type '%s'",
				 c->url, cfg->device_type);
		goto out;
	}
	free(path);
	path = xstrdup("/api/v0.2/devices/?limit=100");
	while (path) {
		json_t *res, *d, *next;
		size_t i;

		json_decref(j);
		if (++pages > LAVA_MAX_PAGES || request(c, path, NULL, &j) < 0)
			goto out;
		free(path);
		path = NULL;
		res = json_object_get(j, "results");
		json_array_foreach(res, i, d)
		{
			const char *type = json_string_value(
				json_object_get(d, "device_type"));
			const char *name = json_string_value(
				json_object_get(d, "hostname"));
			const char *state =
				json_string_value(json_object_get(d, "state"));
			const char *health =
				json_string_value(json_object_get(d, "health"));

			if (!type || !name || strcmp(type, cfg->device_type))
				continue;
			if (cfg->devices.nr &&
			    svec_find(&cfg->devices, name) < 0)
				continue;
			pool->total++;
			if (health && !strcmp(health, "Good")) {
				pool->good++;
				if (state && !strcmp(state, "Idle"))
					pool->idle++;
			}
		}
		next = json_object_get(j, "next");
		if (json_is_string(next))
			path = xstrdup(json_string_value(next));
	}
	if (!pool->total) {
		rb_error("LAVA server %s has no device of type '%s'%s", c->url,
			 cfg->device_type,
			 cfg->devices.nr ? " among the lab's devices:" : "");
		goto out;
	}
	ret = 0;
out:
	json_decref(j);
	free(path);
	return ret;
}

/* --- jobs --------------------------------------------------------------- */

int lava_submit(struct lava_client *c, const char *definition, long *id)
{
	json_t *body = json_pack("{s:s}", "definition", definition), *j = NULL;
	json_t *ids;
	char *text = json_dumps(body, JSON_COMPACT);
	int ret = -1;

	*id = 0;
	if (!text)
		rb_die("out of memory");
	if (request(c, "/api/v0.2/jobs/", text, &j) < 0)
		goto out;
	ids = json_object_get(j, "job_ids");
	if (json_array_size(ids) != 1 ||
	    !json_is_integer(json_array_get(ids, 0))) {
		c->infra = true;
		rb_error("LAVA server %s: the submit's answer names no job",
			 c->url);
		goto out;
	}
	*id = (long)json_integer_value(json_array_get(ids, 0));
	ret = 0;
out:
	json_decref(body);
	json_decref(j);
	free(text);
	return ret;
}

int lava_find_all(struct lava_client *c, const char *name, long **ids,
		  size_t *n)
{
	json_t *j = NULL, *res;
	char *esc, *path;
	CURL *curl = curl_easy_init();
	size_t i, alloc = 0;
	int ret = -1;

	*ids = NULL;
	*n = 0;
	if (!curl)
		rb_die("out of memory initialising libcurl");
	esc = curl_easy_escape(curl, name, 0);
	path = xstrfmt("/api/v0.2/jobs/?description=%s&ordering=id&limit=100",
		       esc);
	curl_free(esc);
	curl_easy_cleanup(curl);
	if (request(c, path, NULL, &j) < 0)
		goto out;
	res = json_object_get(j, "results");
	for (i = 0; i < json_array_size(res); i++) {
		long id = (long)json_integer_value(
			json_object_get(json_array_get(res, i), "id"));

		if (id <= 0)
			continue;
		RB_ALLOC_GROW(*ids, *n + 1, alloc);
		(*ids)[(*n)++] = id;
	}
	ret = 0;
out:
	json_decref(j);
	free(path);
	return ret;
}

int lava_find(struct lava_client *c, const char *name, long *id)
{
	long *ids;
	size_t n;

	*id = 0;
	if (lava_find_all(c, name, &ids, &n) < 0)
		return -1;
	if (n)
		*id = ids[0];
	free(ids);
	return n ? 1 : 0;
}

static char *json_str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? xstrdup(v) : NULL;
}

void lava_job_release(struct lava_job *j)
{
	free(j->state);
	free(j->health);
	free(j->device);
	free(j->error_type);
	free(j->error_msg);
	memset(j, 0, sizeof(*j));
}

/* The `job` case of the lava suite: error_type and error_msg. */
static int job_error(struct lava_client *c, long id, struct lava_job *out)
{
	json_t *j = NULL, *res;
	char *path = xstrfmt("/api/v0.2/jobs/%ld/tests/?name=job", id);
	const char *meta;
	struct ystream ys;
	int ret = -1;

	if (request(c, path, NULL, &j) < 0)
		goto out;
	res = json_array_get(json_object_get(j, "results"), 0);
	meta = json_string_value(json_object_get(res, "metadata"));
	if (meta && ytree_parse(&ys, "metadata", meta, strlen(meta)) == 0) {
		const struct ynode *m = ys.nr ? ys.docs[0] : NULL;
		const struct ynode *t = ynode_map_get(m, "error_type");
		const struct ynode *e = ynode_map_get(m, "error_msg");

		if (t && t->kind == YNODE_SCALAR)
			out->error_type = xstrdup(t->str);
		if (e && e->kind == YNODE_SCALAR)
			out->error_msg = xstrdup(e->str);
		ystream_release(&ys);
	}
	ret = 0;
out:
	json_decref(j);
	free(path);
	return ret;
}

int lava_job_get(struct lava_client *c, long id, struct lava_job *out)
{
	json_t *j = NULL;
	char *path = xstrfmt("/api/v0.2/jobs/%ld/", id);
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (request(c, path, NULL, &j) < 0)
		goto out;
	out->state = json_str(j, "state");
	out->health = json_str(j, "health");
	out->device = json_str(j, "actual_device");
	if (!out->state || !out->health) {
		c->infra = true;
		rb_error("LAVA server %s: job %ld has no state", c->url, id);
		goto out;
	}
	out->finished = !strcmp(out->state, "Finished");
	if (out->finished && strcmp(out->health, "Complete") &&
	    job_error(c, id, out) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0)
		lava_job_release(out);
	json_decref(j);
	free(path);
	return ret;
}

int lava_console(struct lava_client *c, long id, struct sbuf *out)
{
	struct sbuf ans = SBUF_INIT;
	char *path = xstrfmt("/api/v0.2/jobs/%ld/logs/", id);
	struct ystream ys;
	const struct ynode *log;
	size_t i;
	int ret = -1;

	sbuf_reset(out);
	if (request_text(c, path, NULL, &ans) < 0)
		goto out;
	if (ytree_parse(&ys, "LAVA log", ans.buf, ans.len) < 0) {
		c->infra = true;
		rb_error("LAVA server %s: the log of job %ld is not YAML: %s",
			 c->url, id, rb_errmsg());
		goto out;
	}
	log = ys.nr ? ys.docs[0] : NULL;
	for (i = 0; log && log->kind == YNODE_SEQ && i < log->nr; i++) {
		const struct ynode *lvl = ynode_map_get(log->vals[i], "lvl");
		const struct ynode *msg = ynode_map_get(log->vals[i], "msg");

		if (!lvl || !msg || lvl->kind != YNODE_SCALAR ||
		    msg->kind != YNODE_SCALAR || strcmp(lvl->str, "target"))
			continue;
		sbuf_addstr(out, msg->str);
		sbuf_addch(out, '\n');
	}
	ystream_release(&ys);
	ret = 0;
out:
	sbuf_release(&ans);
	free(path);
	return ret;
}

int lava_cancel(struct lava_client *c, long id)
{
	json_t *j = NULL;
	char *path = xstrfmt("/api/v0.2/jobs/%ld/cancel/", id);
	int ret = request(c, path, NULL, &j);

	json_decref(j);
	free(path);
	return ret;
}
