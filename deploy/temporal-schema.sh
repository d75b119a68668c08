#!/bin/sh
# Creates (first run) or upgrades (after a server upgrade) both Temporal databases on PostgreSQL.
# Every step is idempotent: create-database ignores an existing database, setup-schema -v 0.0 skips a
# database that already has a version, update-schema applies only the versions it lacks.
# Connection from the environment, read by temporal-sql-tool itself: SQL_HOST, SQL_PORT, SQL_USER,
# SQL_PASSWORD (and SQL_TLS… for a managed PostgreSQL). Database names: TEMPORAL_DB,
# TEMPORAL_VISIBILITY_DB.
set -eu
export SQL_PLUGIN=postgres12
for pair in "${TEMPORAL_DB:-temporal}:postgresql/v12/temporal" "${TEMPORAL_VISIBILITY_DB:-temporal_visibility}:postgresql/v12/visibility"; do
  database=${pair%%:*}
  schema=${pair#*:}
  temporal-sql-tool --db "$database" create-database
  temporal-sql-tool --db "$database" setup-schema -v 0.0
  temporal-sql-tool --db "$database" update-schema --schema-name "$schema"
  echo "Database $database is on the newest $schema schema."
done
