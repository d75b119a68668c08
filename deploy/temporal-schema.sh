#!/bin/sh
# Creates (first run) or upgrades (after a server upgrade) both Temporal databases on PostgreSQL.
# Every step is idempotent: create-database ignores an existing database, setup-schema -v 0.0 skips a
# database that already has a version, update-schema applies only the versions it lacks.
# Connection from the environment, read by the schema tool itself: SQL_HOST, SQL_PORT, SQL_USER,
# SQL_PASSWORD (and SQL_TLS… for a managed PostgreSQL). Database names: TEMPORAL_DB,
# TEMPORAL_VISIBILITY_DB. The user needs LOGIN and CREATEDB, no more.
# The schema tool: TEMPORAL_SQL_TOOL, else `temporal-sql-tool` (the image's name for it), else `sql`
# (what `go install go.temporal.io/server/cmd/tools/sql@<version>` installs).
set -eu
export SQL_PLUGIN=postgres12
tool=${TEMPORAL_SQL_TOOL:-}
if [ -z "$tool" ]; then
  if command -v temporal-sql-tool >/dev/null 2>&1; then
    tool=temporal-sql-tool
  elif command -v sql >/dev/null 2>&1; then
    tool=sql
  else
    echo "No Temporal schema tool: install go.temporal.io/server/cmd/tools/sql as temporal-sql-tool, or set TEMPORAL_SQL_TOOL" >&2
    exit 2
  fi
fi
for pair in "${TEMPORAL_DB:-temporal}:postgresql/v12/temporal" "${TEMPORAL_VISIBILITY_DB:-temporal_visibility}:postgresql/v12/visibility"; do
  database=${pair%%:*}
  schema=${pair#*:}
  "$tool" --db "$database" create-database
  "$tool" --db "$database" setup-schema -v 0.0
  "$tool" --db "$database" update-schema --schema-name "$schema"
  echo "Database $database is on the newest $schema schema."
done
