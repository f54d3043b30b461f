// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQLite adapter. Schema changes are appended to migrations[]; never
 * edit a migration that has shipped.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "robot.h"
#include "db.h"
#include "sbuf.h"
#include "store.h"
#include "svec.h"

struct store {
	sqlite3 *db;
	char *path;
	int64_t bisection_id; /* tags new builds, boots and runs (0: none) */
};

/*
 * Migration N brings a database from user_version N to N+1. Each runs in
 * its own transaction together with the user_version bump.
 */
static const char *const migrations[] = {
	/* 0 -> 1: lab execution (builds, boots, runs, samples) */
	"CREATE TABLE builds ("
	"  id INTEGER PRIMARY KEY,"
	"  commit_sha TEXT NOT NULL,"
	"  kconfig TEXT NOT NULL,"
	"  compiler TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('ok','skip','infra')),"
	"  exit_code INTEGER NOT NULL,"
	"  started REAL NOT NULL,"
	"  finished REAL NOT NULL,"
	"  artifact_dir TEXT NOT NULL,"
	"  log TEXT NOT NULL"
	") STRICT;"
	"CREATE INDEX builds_by_commit ON builds(commit_sha, kconfig, compiler);"
	"CREATE TABLE boots ("
	"  id INTEGER PRIMARY KEY,"
	"  build_id INTEGER REFERENCES builds(id),"
	"  host TEXT NOT NULL,"
	"  commit_sha TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('ok','skip','infra')),"
	"  exit_code INTEGER NOT NULL,"
	"  started REAL NOT NULL,"
	"  finished REAL NOT NULL,"
	"  log TEXT NOT NULL"
	") STRICT;"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  testcase TEXT NOT NULL,"
	"  path_params TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  rootfs TEXT NOT NULL,"
	"  kconfig TEXT NOT NULL,"
	"  compiler TEXT NOT NULL,"
	"  commit_sha TEXT NOT NULL,"
	"  run_no INTEGER NOT NULL,"
	"  boot_id INTEGER REFERENCES boots(id),"
	"  result_dir TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('running','ok','failed','infra','interrupted')),"
	"  message TEXT,"
	"  started REAL NOT NULL,"
	"  finished REAL"
	") STRICT;"
	"CREATE UNIQUE INDEX runs_by_key ON runs(testcase, path_params, host,"
	"  rootfs, kconfig, compiler, commit_sha, run_no);"
	"CREATE INDEX runs_by_commit ON runs(commit_sha);"
	"CREATE TABLE samples ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  stat TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (run_id, stat)"
	") STRICT, WITHOUT ROWID;"
	"CREATE INDEX samples_by_stat ON samples(stat);",
	/* 1 -> 2: bisections, their steps, and what ran for them */
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  job TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"
	"  good TEXT NOT NULL,"
	"  bad TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('running','found',"
	"    'not-reproduced','only-skipped','inconclusive')),"
	"  culprit TEXT,"
	"  result TEXT,"
	"  created REAL NOT NULL,"
	"  finished REAL"
	") STRICT;"
	"CREATE TABLE bisection_steps ("
	"  id INTEGER PRIMARY KEY,"
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id)"
	"    ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  commit_sha TEXT,"
	"  host TEXT,"
	"  verdict TEXT,"
	"  detail TEXT,"
	"  time REAL NOT NULL"
	") STRICT;"
	"CREATE INDEX bisection_steps_by_bisection ON"
	"  bisection_steps(bisection_id, id);"
	"ALTER TABLE builds ADD COLUMN bisection_id INTEGER"
	"  REFERENCES bisections(id) ON DELETE SET NULL;"
	"ALTER TABLE boots ADD COLUMN bisection_id INTEGER"
	"  REFERENCES bisections(id) ON DELETE SET NULL;"
	"ALTER TABLE runs ADD COLUMN bisection_id INTEGER"
	"  REFERENCES bisections(id) ON DELETE SET NULL;"
	"CREATE INDEX runs_by_bisection ON runs(bisection_id, commit_sha);",
	/* 2 -> 3: the nightly loop (nightly-store.c) */
	"CREATE TABLE nightly_cycles ("
	"  id INTEGER PRIMARY KEY,"
	"  tree TEXT NOT NULL,"
	"  branch TEXT NOT NULL,"
	"  url TEXT NOT NULL,"
	"  head TEXT NOT NULL,"
	"  previous TEXT,"
	"  status TEXT NOT NULL CHECK (status IN ('running','done')),"
	"  started REAL NOT NULL,"
	"  finished REAL,"
	"  summary TEXT"
	") STRICT;"
	"CREATE INDEX nightly_cycles_by_tree ON nightly_cycles(tree, branch,"
	"  status, id);"
	"CREATE TABLE nightly_jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  cycle_id INTEGER NOT NULL REFERENCES nightly_cycles(id)"
	"    ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  job TEXT NOT NULL,"
	"  job_file TEXT NOT NULL,"
	"  params TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"
	"  threshold TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  hosts TEXT NOT NULL,"
	"  head TEXT NOT NULL,"
	"  baseline TEXT,"
	"  baseline_name TEXT,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('measure','act','still','done')),"
	"  verdict TEXT,"
	"  detection TEXT,"
	"  bisection_id INTEGER REFERENCES bisections(id) ON DELETE SET NULL,"
	"  outcome TEXT,"
	"  mail TEXT,"
	"  message TEXT,"
	"  UNIQUE (cycle_id, seq)"
	") STRICT;"
	"CREATE INDEX nightly_jobs_by_job ON nightly_jobs(job, cycle_id);"
	"CREATE TABLE nightly_history ("
	"  job TEXT NOT NULL,"
	"  commit_sha TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  stat TEXT NOT NULL,"
	"  n INTEGER NOT NULL,"
	"  mean REAL NOT NULL,"
	"  stddev REAL NOT NULL,"
	"  min REAL NOT NULL,"
	"  max REAL NOT NULL,"
	"  cycle_id INTEGER REFERENCES nightly_cycles(id) ON DELETE SET NULL,"
	"  time REAL NOT NULL,"
	"  PRIMARY KEY (job, commit_sha, host, stat)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE nightly_reports ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('regression','improvement')),"
	"  culprit TEXT NOT NULL,"
	"  bisection_id INTEGER REFERENCES bisections(id) ON DELETE SET NULL,"
	"  cycle_id INTEGER REFERENCES nightly_cycles(id) ON DELETE SET NULL,"
	"  head TEXT NOT NULL,"
	"  mail TEXT,"
	"  status TEXT NOT NULL CHECK (status IN ('open','gone')),"
	"  gone_at TEXT,"
	"  created REAL NOT NULL,"
	"  UNIQUE (job, metric, culprit)"
	") STRICT;"
	"CREATE TABLE nightly_still ("
	"  report_id INTEGER NOT NULL REFERENCES nightly_reports(id)"
	"    ON DELETE CASCADE,"
	"  head TEXT NOT NULL,"
	"  tree TEXT NOT NULL,"
	"  branch TEXT NOT NULL,"
	"  cycle_id INTEGER REFERENCES nightly_cycles(id) ON DELETE SET NULL,"
	"  change_pct REAL,"
	"  mail TEXT,"
	"  time REAL NOT NULL,"
	"  PRIMARY KEY (report_id, head)"
	") STRICT;",
	/* 3 -> 4: a bisection whose robot stopped (a signal, an error)
	 * before its end: when and why; cleared when it resumes */
	"ALTER TABLE bisections ADD COLUMN stopped REAL;"
	"ALTER TABLE bisections ADD COLUMN stop_reason TEXT;",
	/* 4 -> 5: bisections of one range (the same job, endpoints and
	 * options, another metric or threshold) share their runs */
	"ALTER TABLE bisections ADD COLUMN range_key TEXT;"
	"CREATE INDEX bisections_by_range ON bisections(range_key);",
	/* 5 -> 6: LAVA jobs (lava-exec.c), one per batch: recorded before
	 * the submit and given the server's id before the robot waits */
	"CREATE TABLE lava_jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  lava_id INTEGER,"
	"  host TEXT NOT NULL,"
	"  commit_sha TEXT NOT NULL,"
	"  job_key TEXT NOT NULL,"
	"  runs INTEGER NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('submitting','submitted',"
	"    'ok','skip','infra','canceled')),"
	"  boot_id INTEGER REFERENCES boots(id),"
	"  message TEXT,"
	"  submitted REAL NOT NULL,"
	"  finished REAL,"
	"  bisection_id INTEGER"
	") STRICT;"
	"CREATE INDEX lava_jobs_by_commit ON lava_jobs(host, commit_sha,"
	"  job_key);",
	/* 6 -> 7: builds made ahead of need (session look-ahead) and where
	 * (a build host, NULL: this machine); the time a bisection's boxes
	 * waited for kernels */
	"ALTER TABLE builds ADD COLUMN ahead INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE builds ADD COLUMN build_host TEXT;"
	"ALTER TABLE bisections ADD COLUMN build_wait REAL NOT NULL"
	"  DEFAULT 0;",
	/* 7 -> 8: change points of the nightly history that no cycle's own
	 * test called, bisected between the heads good and bad */
	"CREATE TABLE nightly_changes ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  at_commit TEXT NOT NULL,"
	"  good TEXT NOT NULL,"
	"  bad TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('regression','improvement')),"
	"  change_pct REAL,"
	"  p REAL NOT NULL,"
	"  bisection_id INTEGER REFERENCES bisections(id) ON DELETE SET NULL,"
	"  cycle_id INTEGER REFERENCES nightly_cycles(id) ON DELETE SET NULL,"
	"  created REAL NOT NULL,"
	"  UNIQUE (job, metric, good, bad)"
	") STRICT;"
	"CREATE INDEX nightly_changes_by_job ON nightly_changes(job, metric);",
	/* 8 -> 9: the directories of runs cut off with their ssh host,
	 * left on it (runner.c): ended and removed once the host answers,
	 * by this robot or a later one */
	"CREATE TABLE left_behind ("
	"  host TEXT NOT NULL,"
	"  dir TEXT NOT NULL,"
	"  since REAL NOT NULL,"
	"  PRIMARY KEY (host, dir)"
	") STRICT;",
};

static int store_error(struct store *st, const char *what)
{
	return rb_error("store '%s': %s: %s", st->path, what,
			sqlite3_errmsg(st->db));
}

static int exec(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		rb_error("store '%s': %s", st->path, msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int store_schema_version(struct store *st)
{
	sqlite3_stmt *s;
	int v = -1;

	if (db_query(st->db, &s, "PRAGMA user_version", "") < 0 ||
	    db_get(st->db, s, "read the schema version", "i", &v) < 0)
		return -1;
	return v;
}

static int migrate(struct store *st)
{
	int v = store_schema_version(st);
	int target = (int)RB_ARRAY_SIZE(migrations);

	if (v < 0)
		return -1;
	if (v > target)
		return rb_error("store '%s' has schema version %d, newer than "
				"this robot's %d: upgrade the robot",
				st->path, v, target);
	for (; v < target; v++) {
		char *bump;

		if (exec(st, "BEGIN IMMEDIATE") < 0)
			return -1;
		bump = xstrfmt("PRAGMA user_version = %d", v + 1);
		if (exec(st, migrations[v]) < 0 || exec(st, bump) < 0) {
			free(bump);
			exec(st, "ROLLBACK");
			return rb_error_prefix("migration %d -> %d", v, v + 1);
		}
		free(bump);
		if (exec(st, "COMMIT") < 0)
			return -1;
	}
	return 0;
}

static int open_db(struct store **out, const char *workdir, bool readonly)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int flags = readonly ? SQLITE_OPEN_READONLY :
			       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	*out = NULL;
	if (!readonly && rb_mkdir_p(workdir) < 0) {
		free(st);
		return -1;
	}
	st->path = rb_path_join(workdir, "robot.db");
	if (readonly && !rb_file_exists(st->path)) {
		rb_error("no store in '%s' (nothing has run there yet)",
			 workdir);
		goto fail;
	}
	if (sqlite3_open_v2(st->path, &st->db, flags | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		store_error(st, "open");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_extended_result_codes(st->db, 1);
	if (exec(st, "PRAGMA foreign_keys = ON") < 0)
		goto fail;
	if (!readonly) {
		/* WAL + NORMAL: a commit survives a crash of the robot; after
		 * a power loss the last transactions may roll back, never
		 * tear. */
		if (exec(st, "PRAGMA journal_mode = WAL") < 0 ||
		    exec(st, "PRAGMA synchronous = FULL") < 0 ||
		    migrate(st) < 0)
			goto fail;
		/* a run still "running" here belongs to a robot that died */
		if (exec(st, "UPDATE runs SET status = 'interrupted', "
			     "message = 'the robot stopped during this run' "
			     "WHERE status = 'running'") < 0)
			goto fail;
	} else {
		/* an error reading the version is sqlite's to say (not a
		 * database, no access), not an empty store */
		int v = store_schema_version(st);

		if (v < 0) {
			/* WAL: a reader needs to write the -shm index */
			if (access(workdir, W_OK) < 0)
				rb_error("store '%s' cannot be read without "
					 "write access to '%s' (its WAL index "
					 "lives there): run as the robot's "
					 "user",
					 st->path, workdir);
			goto fail;
		}
		if (!v) {
			rb_error("store '%s' is empty", st->path);
			goto fail;
		}
	}
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

int store_open(struct store **out, const char *workdir)
{
	return open_db(out, workdir, false);
}

int store_open_readonly(struct store **out, const char *workdir)
{
	return open_db(out, workdir, true);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

struct sqlite3 *store_db(struct store *st)
{
	return st->db;
}

int store_begin(struct store *st)
{
	return exec(st, "BEGIN IMMEDIATE");
}

int store_commit(struct store *st)
{
	return exec(st, "COMMIT");
}

void store_rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_RUNNING:
		return "running";
	case RUN_OK:
		return "ok";
	case RUN_FAILED:
		return "failed";
	case RUN_INFRA:
		return "infra";
	case RUN_INTERRUPTED:
		return "interrupted";
	}
	return "unknown";
}

void build_rec_release(struct build_rec *b)
{
	free(b->commit);
	free(b->kconfig);
	free(b->compiler);
	free(b->status);
	free(b->artifact_dir);
	free(b->log);
	memset(b, 0, sizeof(*b));
}

void store_set_bisection(struct store *st, int64_t id)
{
	st->bisection_id = id;
}

int store_build_add(struct store *st, const char *commit, const char *kconfig,
		    const char *compiler, const char *status, int exit_code,
		    double started, double finished, const char *artifact_dir,
		    const char *log, int64_t *id)
{
	return store_build_add_at(st, commit, kconfig, compiler, status,
				  exit_code, started, finished, artifact_dir,
				  log, false, NULL, id);
}

int store_build_add_at(struct store *st, const char *commit,
		       const char *kconfig, const char *compiler,
		       const char *status, int exit_code, double started,
		       double finished, const char *artifact_dir,
		       const char *log, bool ahead, const char *build_host,
		       int64_t *id)
{
	return db_run(
		st->db, id,
		"INSERT INTO builds (commit_sha, kconfig, compiler, status,"
		" exit_code, started, finished, artifact_dir, log,"
		" bisection_id, ahead, build_host)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		"ssssiddssnis", commit, kconfig, compiler, status, exit_code,
		started, finished, artifact_dir, log, st->bisection_id,
		(int)ahead, build_host);
}

int store_bisection_add_wait(struct store *st, int64_t id, double seconds)
{
	return db_run(st->db, NULL,
		      "UPDATE bisections SET build_wait = build_wait + ?"
		      " WHERE id = ?",
		      "dI", seconds, id);
}

int store_bisection_build_counts(struct store *st, int64_t id, int64_t *ahead,
				 int64_t *unused, double *wait)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT (SELECT COUNT(*) FROM builds WHERE"
		     "  bisection_id = ?1 AND ahead = 1),"
		     " (SELECT COUNT(*) FROM builds b WHERE bisection_id = ?1"
		     "  AND ahead = 1 AND NOT EXISTS (SELECT 1 FROM runs r"
		     "   WHERE r.bisection_id = ?1"
		     "   AND r.commit_sha = b.commit_sha)"
		     "  AND NOT EXISTS (SELECT 1 FROM bisection_steps t"
		     "   WHERE t.bisection_id = ?1"
		     "   AND t.commit_sha = b.commit_sha)),"
		     " (SELECT COALESCE(MAX(build_wait), 0) FROM bisections"
		     "  WHERE id = ?1)",
		     "I", id) < 0 ||
	    db_get(st->db, s, "count builds", "IId", ahead, unused, wait) < 0)
		return -1;
	return 0;
}

int store_build_latest(struct store *st, const char *commit,
		       const char *kconfig, const char *compiler,
		       struct build_rec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT id, commit_sha, kconfig, compiler, status,"
		     " exit_code, started, finished, artifact_dir, log"
		     " FROM builds WHERE commit_sha = ? AND kconfig = ?"
		     " AND compiler = ? ORDER BY id DESC LIMIT 1",
		     "sss", commit, kconfig, compiler) < 0)
		return -1;
	return db_get(st->db, s, "read builds", "ISSSSiddSS", &out->id,
		      &out->commit, &out->kconfig, &out->compiler, &out->status,
		      &out->exit_code, &out->started, &out->finished,
		      &out->artifact_dir, &out->log);
}

int store_boot_add(struct store *st, int64_t build_id, const char *host,
		   const char *commit, const char *status, int exit_code,
		   double started, double finished, const char *log,
		   int64_t *id)
{
	return db_run(st->db, id,
		      "INSERT INTO boots (build_id, host, commit_sha, status,"
		      " exit_code, started, finished, log, bisection_id)"
		      " VALUES (?,?,?,?,?,?,?,?,?)",
		      "nsssiddsn", build_id, host, commit, status, exit_code,
		      started, finished, log, st->bisection_id);
}

/* --- LAVA jobs ---------------------------------------------------------- */

void lava_job_rec_release(struct lava_job_rec *j)
{
	free(j->name);
	free(j->state);
	free(j->message);
	memset(j, 0, sizeof(*j));
}

int store_lava_add(struct store *st, const char *name, const char *host,
		   const char *commit, const char *job_key, int runs,
		   int64_t *id)
{
	return db_run(st->db, id,
		      "INSERT INTO lava_jobs (name, host, commit_sha, job_key,"
		      " runs, state, submitted, bisection_id)"
		      " VALUES (?,?,?,?,?,'submitting',"
		      " (julianday('now') - 2440587.5) * 86400.0, ?)",
		      "ssssin", name, host, commit, job_key, runs,
		      st->bisection_id);
}

int store_lava_submitted(struct store *st, int64_t id, int64_t lava_id)
{
	return db_run(st->db, NULL,
		      "UPDATE lava_jobs SET lava_id = ?, state = 'submitted'"
		      " WHERE id = ?",
		      "II", lava_id, id);
}

int store_lava_finish(struct store *st, int64_t id, const char *state,
		      int64_t boot_id, const char *message)
{
	return db_run(st->db, NULL,
		      "UPDATE lava_jobs SET state = ?, boot_id = ?,"
		      " message = ?,"
		      " finished = (julianday('now') - 2440587.5) * 86400.0"
		      " WHERE id = ?",
		      "snsI", state, boot_id, message, id);
}

int store_lava_stray(struct store *st, int64_t of, int64_t lava_id,
		     const char *message)
{
	return db_run(st->db, NULL,
		      "INSERT OR IGNORE INTO lava_jobs (name, lava_id, host,"
		      " commit_sha, job_key, runs, state, message, submitted,"
		      " finished, bisection_id)"
		      " SELECT name || ' (stray job ' || ?2 || ')', ?2, host,"
		      " commit_sha, job_key, runs, 'canceled', ?3,"
		      " (julianday('now') - 2440587.5) * 86400.0,"
		      " (julianday('now') - 2440587.5) * 86400.0, bisection_id"
		      " FROM lava_jobs WHERE id = ?1",
		      "IIs", of, lava_id, message);
}

int store_lava_oldest_waiting(struct store *st, double since, double *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT COALESCE(MIN(submitted), 0) FROM lava_jobs"
		     " WHERE state IN ('submitting','submitted')"
		     " AND submitted >= ?",
		     "d", since) < 0 ||
	    db_get(st->db, s, "read lava_jobs", "d", out) < 0)
		return -1;
	return 0;
}

int store_lava_known(struct store *st, int64_t lava_id)
{
	sqlite3_stmt *s;
	int n;

	if (db_query(st->db, &s,
		     "SELECT COUNT(*) FROM lava_jobs WHERE lava_id = ?", "I",
		     lava_id) < 0 ||
	    db_get(st->db, s, "read lava_jobs", "i", &n) < 0)
		return -1;
	return n > 0;
}

#define LAVA_COLS                                                            \
	"id, name, COALESCE(lava_id, 0), runs, state, COALESCE(boot_id, 0)," \
	" message"

static int lava_get(struct store *st, sqlite3_stmt *s, struct lava_job_rec *j)
{
	memset(j, 0, sizeof(*j));
	return db_get(st->db, s, "read lava_jobs", "ISIiSIs", &j->id, &j->name,
		      &j->lava_id, &j->runs, &j->state, &j->boot_id,
		      &j->message);
}

int store_lava_open(struct store *st, const char *host, const char *commit,
		    const char *job_key, struct lava_job_rec *out)
{
	sqlite3_stmt *s;

	/* the newest batch still to wait on, or whose runs are not all
	 * taken (a run that was not finished gives its output again) */
	if (db_query(st->db, &s,
		     "SELECT " LAVA_COLS " FROM lava_jobs j"
		     " WHERE host = ? AND commit_sha = ? AND job_key = ?"
		     " AND (state IN ('submitting','submitted') OR"
		     "  (state = 'ok' AND runs > (SELECT COUNT(*) FROM runs"
		     "   WHERE runs.boot_id = j.boot_id"
		     "   AND runs.status IN ('ok','failed','infra'))))"
		     " ORDER BY id DESC LIMIT 1",
		     "sss", host, commit, job_key) < 0)
		return -1;
	return lava_get(st, s, out);
}

int store_lava_taken(struct store *st, int64_t boot_id, int *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT COUNT(*) FROM runs WHERE boot_id = ?"
		     " AND status IN ('ok','failed','infra')",
		     "I", boot_id) < 0 ||
	    db_get(st->db, s, "read runs", "i", out) < 0)
		return -1;
	return 0;
}

int store_lava_waiting(struct store *st, int64_t bisection_id,
		       struct lava_job_rec **out, size_t *n)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (db_query(st->db, &s,
		     "SELECT " LAVA_COLS " FROM lava_jobs"
		     " WHERE state IN ('submitting','submitted')"
		     " AND (?1 = 0 OR bisection_id = ?1) ORDER BY id",
		     "I", bisection_id) < 0)
		return -1;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct lava_job_rec *j;

		RB_ALLOC_GROW(*out, *n + 1, alloc);
		j = &(*out)[(*n)++];
		memset(j, 0, sizeof(*j));
		db_cols(s, "ISIiSIs", &j->id, &j->name, &j->lava_id, &j->runs,
			&j->state, &j->boot_id, &j->message);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(st->db, "read lava_jobs");
	return 0;
}

int store_next_run_no(struct store *st, const struct run_key *key, int *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT COALESCE(MAX(run_no) + 1, 0) FROM runs"
		     " WHERE testcase = ? AND path_params = ? AND host = ?"
		     " AND rootfs = ? AND kconfig = ? AND compiler = ?"
		     " AND commit_sha = ?",
		     "k", key) < 0 ||
	    db_get(st->db, s, "read runs", "i", out) < 0)
		return -1;
	return 0;
}

int store_run_start(struct store *st, const struct run_key *key, int run_no,
		    int64_t boot_id, const char *result_dir, int64_t *id)
{
	return db_run(st->db, id,
		      "INSERT INTO runs (testcase, path_params, host, rootfs,"
		      " kconfig, compiler, commit_sha, run_no, boot_id,"
		      " result_dir, bisection_id, status, started)"
		      " VALUES (?,?,?,?,?,?,?,?,?,?,?,'running',"
		      " (julianday('now') - 2440587.5) * 86400.0)",
		      "kinsn", key, run_no, boot_id, result_dir,
		      st->bisection_id);
}

int store_run_finish(struct store *st, int64_t run_id, enum run_status status,
		     const char *message, const struct statset *samples)
{
	sqlite3_stmt *s;
	size_t i;

	/* a run that ends after a stop was asked for may have been cut by
	 * it: it stays "running", which the next store_open marks
	 * interrupted */
	if (rb_stop_requested())
		return 0;
	if (store_begin(st) < 0)
		return -1;
	if (db_run(st->db, NULL,
		   "UPDATE runs SET status = ?, message = ?,"
		   " finished = (julianday('now') - 2440587.5) * 86400.0"
		   " WHERE id = ?",
		   "ssI", run_status_name(status), message, run_id) < 0 ||
	    db_query(st->db, &s,
		     "INSERT OR REPLACE INTO samples (run_id, stat, value)"
		     " VALUES (?,?,?)",
		     "") < 0)
		goto fail;
	for (i = 0; samples && i < samples->nr; i++) {
		db_bind(s, "Isd", run_id, samples->v[i].name,
			samples->v[i].value);
		if (sqlite3_step(s) != SQLITE_DONE) {
			db_error(st->db, "write samples");
			sqlite3_finalize(s);
			goto fail;
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	if (store_commit(st) < 0)
		goto fail;
	return 0;
fail:
	store_rollback(st);
	return -1;
}

int store_samples(struct store *st, const struct run_key *key, const char *stat,
		  double **vals, size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT s.value FROM runs r JOIN samples s ON s.run_id = r.id"
		     " WHERE r.testcase = ? AND r.path_params = ?"
		     " AND (?3 IS NULL OR r.host = ?3)"
		     " AND r.rootfs = ? AND r.kconfig = ? AND r.compiler = ?"
		     " AND r.commit_sha = ? AND r.status = 'ok' AND s.stat = ?"
		     " ORDER BY r.id",
		     "ks", key, stat) < 0)
		return -1;
	return db_rows(st->db, s, "read samples", &db_double_rows,
		       (void **)vals, n);
}

int store_count(struct store *st, const char *table, const char *where,
		int64_t *out)
{
	char *sql = xstrfmt("SELECT COUNT(*) FROM %s%s%s", table,
			    where ? " WHERE " : "", where ? where : "");
	sqlite3_stmt *s;
	int rc;

	rc = db_query(st->db, &s, sql, "");
	free(sql);
	if (rc < 0 || db_get(st->db, s, "count", "I", out) < 0)
		return -1;
	return 0;
}

/* ---- bisections ------------------------------------------------------ */

void bisection_rec_release(struct bisection_rec *b)
{
	free(b->key);
	free(b->job);
	free(b->metric);
	free(b->good);
	free(b->bad);
	free(b->command);
	free(b->status);
	free(b->culprit);
	free(b->result);
	free(b->stop_reason);
	memset(b, 0, sizeof(*b));
}

void bisection_recs_free(struct bisection_rec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bisection_rec_release(&v[i]);
	free(v);
}

#define BISECTION_COLS                                                       \
	"id, key, job, metric, good, bad, command, status, culprit, result," \
	" created, finished, stopped, stop_reason"

static void read_bisection(sqlite3_stmt *s, void *elem)
{
	struct bisection_rec *b = elem;

	db_cols(s, "ISSSSSSSssddds", &b->id, &b->key, &b->job, &b->metric,
		&b->good, &b->bad, &b->command, &b->status, &b->culprit,
		&b->result, &b->created, &b->finished, &b->stopped,
		&b->stop_reason);
}

static void free_bisections(void *v, size_t n)
{
	bisection_recs_free(v, n);
}

static const struct db_rowtype bisection_rows = {
	.size = sizeof(struct bisection_rec),
	.read = read_bisection,
	.free = free_bisections,
};

static void read_step(sqlite3_stmt *s, void *elem)
{
	struct bisection_step_rec *v = elem;

	db_cols(s, "ISssssd", &v->id, &v->kind, &v->commit, &v->host,
		&v->verdict, &v->detail, &v->time);
}

static void free_steps(void *v, size_t n)
{
	bisection_steps_free(v, n);
}

static const struct db_rowtype step_rows = {
	.size = sizeof(struct bisection_step_rec),
	.read = read_step,
	.free = free_steps,
};

static void read_sample(sqlite3_stmt *s, void *elem)
{
	struct run_sample *v = elem;

	db_cols(s, "ISd", &v->run_id, &v->host, &v->value);
}

static void free_samples(void *v, size_t n)
{
	run_samples_free(v, n);
}

static const struct db_rowtype sample_rows = {
	.size = sizeof(struct run_sample),
	.read = read_sample,
	.free = free_samples,
};

int store_bisection_by_key(struct store *st, const char *key,
			   struct bisection_rec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT " BISECTION_COLS " FROM bisections WHERE key = ?",
		     "s", key) < 0)
		return -1;
	return db_one(st->db, s, "read bisections", &bisection_rows, out);
}

int store_bisection_get(struct store *st, int64_t id, struct bisection_rec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT " BISECTION_COLS " FROM bisections WHERE id = ?",
		     "I", id) < 0)
		return -1;
	return db_one(st->db, s, "read bisections", &bisection_rows, out);
}

int store_bisection_create(struct store *st, const char *key,
			   const char *range_key, const char *job,
			   const char *metric, const char *good,
			   const char *bad, const char *command, int64_t *id)
{
	return db_run(
		st->db, id,
		"INSERT INTO bisections (key, range_key, job, metric, good, bad,"
		" command, status, created) VALUES (?,?,?,?,?,?,?,'running',"
		" (julianday('now') - 2440587.5) * 86400.0)",
		"sssssss", key, range_key, job, metric, good, bad, command);
}

int store_bisection_finish(struct store *st, int64_t id, const char *status,
			   const char *culprit, const char *result)
{
	return db_run(
		st->db, NULL,
		"UPDATE bisections SET status = ?, culprit = ?, result = ?,"
		" finished = (julianday('now') - 2440587.5) * 86400.0"
		" WHERE id = ?",
		"sssI", status, culprit, result, id);
}

int store_bisection_stop(struct store *st, int64_t id, const char *reason)
{
	return db_run(st->db, NULL,
		      "UPDATE bisections SET stopped = (julianday('now') -"
		      " 2440587.5) * 86400.0, stop_reason = ?"
		      " WHERE id = ? AND status = 'running'",
		      "sI", reason, id);
}

int store_bisection_resume(struct store *st, int64_t id)
{
	return db_run(st->db, NULL,
		      "UPDATE bisections SET stopped = NULL, stop_reason = NULL"
		      " WHERE id = ?",
		      "I", id);
}

const char *bisection_rec_status(const struct bisection_rec *b,
				 bool robot_running)
{
	if (strcmp(b->status, "running"))
		return b->status;
	return b->stopped > 0 || !robot_running ? "interrupted" : "running";
}

int store_bisection_list(struct store *st, struct bisection_rec **out,
			 size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT " BISECTION_COLS
		     " FROM bisections ORDER BY id DESC",
		     "") < 0)
		return -1;
	return db_rows(st->db, s, "read bisections", &bisection_rows,
		       (void **)out, n);
}

int store_bisection_delete(struct store *st, int64_t id)
{
	return db_run(st->db, NULL, "DELETE FROM bisections WHERE id = ?", "I",
		      id);
}

int store_bisection_step_add(struct store *st, int64_t id, const char *kind,
			     const char *commit, const char *host,
			     const char *verdict, const char *detail)
{
	return db_run(
		st->db, NULL,
		"INSERT INTO bisection_steps (bisection_id, kind,"
		" commit_sha, host, verdict, detail, time) VALUES"
		" (?,?,?,?,?,?, (julianday('now') - 2440587.5) * 86400.0)",
		"Isssss", id, kind, commit, host, verdict, detail);
}

int store_bisection_steps(struct store *st, int64_t id,
			  struct bisection_step_rec **out, size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT id, kind, commit_sha, host, verdict, detail, time"
		     " FROM bisection_steps WHERE bisection_id = ? ORDER BY id",
		     "I", id) < 0)
		return -1;
	return db_rows(st->db, s, "read bisection steps", &step_rows,
		       (void **)out, n);
}

int store_bisection_samples(struct store *st, int64_t id, const char *commit,
			    const char *stat, struct run_sample **out,
			    size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT r.id, r.host, s.value FROM runs r"
		     " JOIN samples s ON s.run_id = r.id"
		     " WHERE r.bisection_id IN (SELECT b.id FROM bisections b"
		     "  WHERE b.id = ?1 OR b.range_key = (SELECT range_key"
		     "  FROM bisections WHERE id = ?1))"
		     " AND r.commit_sha = ?2"
		     " AND r.status = 'ok' AND s.stat = ?3 ORDER BY r.id",
		     "Iss", id, commit, stat) < 0)
		return -1;
	return db_rows(st->db, s, "read samples", &sample_rows, (void **)out,
		       n);
}

static void name_row(sqlite3_stmt *s, void *arg)
{
	svec_push(arg, (const char *)sqlite3_column_text(s, 0));
}

int store_job_stat_names(struct store *st, const char *testcase,
			 const char *path_params, struct svec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT DISTINCT s.stat FROM samples s"
		     " JOIN runs r ON r.id = s.run_id"
		     " WHERE r.testcase = ? AND r.path_params = ?"
		     " AND r.status = 'ok' ORDER BY s.stat LIMIT 10000",
		     "ss", testcase, path_params) < 0)
		return -1;
	return db_each(st->db, s, "read stat names", name_row, out);
}

int store_left_behind_add(struct store *st, const char *host, const char *dir)
{
	return db_run(
		st->db, NULL,
		"INSERT OR IGNORE INTO left_behind (host, dir, since)"
		" VALUES (?, ?, (julianday('now') - 2440587.5) * 86400.0)",
		"ss", host, dir);
}

int store_left_behind(struct store *st, const char *host, struct svec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT dir FROM left_behind WHERE host = ?"
		     " ORDER BY since, dir",
		     "s", host) < 0)
		return -1;
	return db_each(st->db, s, "read left_behind", name_row, out);
}

int store_left_behind_gone(struct store *st, const char *host, const char *dir)
{
	return db_run(st->db, NULL,
		      "DELETE FROM left_behind WHERE host = ? AND dir = ?",
		      "ss", host, dir);
}

int store_bisection_run_count(struct store *st, int64_t id, const char *commit,
			      const char *status, int64_t *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT COUNT(*) FROM runs WHERE bisection_id = ?"
		     " AND commit_sha = ? AND status = ?",
		     "Iss", id, commit, status) < 0 ||
	    db_get(st->db, s, "count runs", "I", out) < 0)
		return -1;
	return 0;
}

int store_bisection_counts(struct store *st, int64_t id, int64_t *runs,
			   int64_t *builds, int64_t *boots)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT (SELECT COUNT(*) FROM runs WHERE bisection_id = ?1),"
		     " (SELECT COUNT(*) FROM builds WHERE bisection_id = ?1),"
		     " (SELECT COUNT(*) FROM boots WHERE bisection_id = ?1"
		     "  AND log != '')",
		     "I", id) < 0 ||
	    db_get(st->db, s, "count", "III", runs, builds, boots) < 0)
		return -1;
	return 0;
}

int store_bisection_commits(struct store *st, int64_t id, struct svec *out)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT commit_sha FROM runs WHERE bisection_id = ?"
		     " GROUP BY commit_sha ORDER BY MIN(id)",
		     "I", id) < 0)
		return -1;
	return db_each(st->db, s, "read runs", name_row, out);
}

int store_bisection_commit_counts(struct store *st, int64_t id,
				  const char *commit, struct commit_counts *out)
{
	sqlite3_stmt *s;

	memset(out, 0, sizeof(*out));
	if (db_query(st->db, &s,
		     "SELECT (SELECT COUNT(*) FROM builds WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2),"
		     " (SELECT COUNT(*) FROM boots WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2 AND log != ''),"
		     " (SELECT COUNT(*) FROM boots WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2 AND log != '' AND status != 'ok'),"
		     " (SELECT COUNT(*) FROM runs WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2 AND status IN ('failed', 'infra')),"
		     " COALESCE((SELECT log FROM builds WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2 AND log != '' ORDER BY id DESC"
		     "  LIMIT 1), (SELECT log FROM builds WHERE commit_sha = ?2"
		     "  AND log != '' ORDER BY id DESC LIMIT 1)),"
		     " (SELECT log FROM boots WHERE bisection_id = ?1"
		     "  AND commit_sha = ?2 AND log != '' ORDER BY id DESC"
		     "  LIMIT 1)",
		     "Is", id, commit) < 0 ||
	    db_get(st->db, s, "count", "IIIIss", &out->builds, &out->boots,
		   &out->boots_failed, &out->runs_failed, &out->build_log,
		   &out->boot_log) < 0)
		return -1;
	return 0;
}

int64_t store_last_run_id(struct store *st)
{
	sqlite3_stmt *s;
	int64_t id = 0;

	if (db_query(st->db, &s, "SELECT COALESCE(MAX(id), 0) FROM runs", "") <
		    0 ||
	    db_get(st->db, s, "read runs", "I", &id) < 0)
		return 0;
	return id;
}

void run_stats_free(struct run_stats *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].host);
		free(v[i].result_dir);
		statset_release(&v[i].stats);
	}
	free(v);
}

struct run_stats_rows {
	struct run_stats *v;
	size_t nr, alloc;
};

/* A row (run id, host, result_dir, stat, value); rows come by run id. */
static void add_run_stat(sqlite3_stmt *s, void *arg)
{
	struct run_stats_rows *r = arg;
	struct run_stats *e = r->nr ? &r->v[r->nr - 1] : NULL;
	int64_t rid = sqlite3_column_int64(s, 0);

	if (!e || e->run_id != rid) {
		RB_ALLOC_GROW(r->v, r->nr + 1, r->alloc);
		e = &r->v[r->nr++];
		memset(e, 0, sizeof(*e));
		e->run_id = rid;
		e->host = db_col_text(s, 1);
		e->result_dir = db_col_text(s, 2);
	}
	statset_set(&e->stats, (const char *)sqlite3_column_text(s, 3),
		    sqlite3_column_double(s, 4));
}

static int read_run_stats(struct store *st, sqlite3_stmt *s,
			  struct run_stats **out, size_t *n)
{
	struct run_stats_rows r = { 0 };

	if (db_each(st->db, s, "read samples", add_run_stat, &r) < 0) {
		run_stats_free(r.v, r.nr);
		return -1;
	}
	*out = r.v;
	*n = r.nr;
	return 0;
}

int store_bisection_run_stats(struct store *st, int64_t id, const char *commit,
			      const char *host, struct run_stats **out,
			      size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT r.id, r.host, r.result_dir, s.stat, s.value"
		     " FROM runs r JOIN samples s ON s.run_id = r.id"
		     " WHERE r.bisection_id = ? AND r.commit_sha = ?"
		     " AND r.status = 'ok' AND (?3 IS NULL OR r.host = ?3)"
		     " ORDER BY r.id, s.stat",
		     "Iss", id, commit, host) < 0)
		return -1;
	return read_run_stats(st, s, out, n);
}

int store_key_run_stats(struct store *st, const struct run_key *key,
			struct run_stats **out, size_t *n)
{
	sqlite3_stmt *s;

	if (db_query(st->db, &s,
		     "SELECT r.id, r.host, r.result_dir, s.stat, s.value"
		     " FROM runs r JOIN samples s ON s.run_id = r.id"
		     " WHERE r.testcase = ? AND r.path_params = ?"
		     " AND (?3 IS NULL OR r.host = ?3)"
		     " AND r.rootfs = ? AND r.kconfig = ? AND r.compiler = ?"
		     " AND r.commit_sha = ? AND r.status = 'ok'"
		     " ORDER BY r.id, s.stat",
		     "k", key) < 0)
		return -1;
	return read_run_stats(st, s, out, n);
}
