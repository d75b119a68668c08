#!/bin/sh
# Starts the Temporal server with deploy/temporal/postgresql.yaml (mounted at /etc/temporal/config).
# Listening on all interfaces in a container, the services must announce an address the others
# can reach (membership): the container's own, unless TEMPORAL_BROADCAST_ADDRESS says otherwise.
set -eu
if [ -z "${TEMPORAL_BROADCAST_ADDRESS:-}" ]; then
  TEMPORAL_BROADCAST_ADDRESS=$(hostname -i | cut -d' ' -f1)
  export TEMPORAL_BROADCAST_ADDRESS
fi
exec temporal-server --root / --config "${TEMPORAL_CONFIG_DIR:-etc/temporal/config}" --env "${TEMPORAL_CONFIG_NAME:-postgresql}" --allow-no-auth start
