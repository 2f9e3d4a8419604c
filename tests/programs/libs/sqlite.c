/* SPDX-License-Identifier: MIT */
// LINK: -lsqlite3 -lm
/* A real program on Debian's libsqlite3 (static): an in-memory database, a table filled in a
 * transaction, an index, queries with aggregates, ordering and LIKE. Output: the rows. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static int row(void *user, int n, char **v, char **names)
{
	(void)user;
	(void)names;
	for (int i = 0; i < n; i++)
		printf("%s%s", v[i] ? v[i] : "NULL", i + 1 < n ? "|" : "\n");
	return 0;
}

static void run(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, row, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s: %s\n", sql, err);
		sqlite3_free(err);
	}
}

int main(int argc, char **argv)
{
	int rows = argc > 1 ? atoi(argv[1]) : 300;
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	run(db, "create table t(id integer primary key, name text, v integer)");
	run(db, "begin");
	for (int i = 0; i < rows; i++) {
		char sql[128];
		snprintf(sql, sizeof(sql), "insert into t(name, v) values('n%d', %d)",
			 i * 7919 % rows, i * 31 % 97);
		run(db, sql);
	}
	run(db, "commit");
	run(db, "create index tv on t(v)");
	run(db, "select count(*), sum(v), min(name), max(name) from t");
	run(db, "select v, count(*) from t group by v order by count(*) desc, v limit 5");
	run(db, "select name from t where name like 'n1%' order by name limit 5");
	run(db, "select * from no_such_table"); /* an error, on stderr */
	sqlite3_close(db);
	return 0;
}
