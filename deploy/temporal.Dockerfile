# The Temporal server and its SQL schema tool, built from Temporal's own Go module at the version
# the cluster test runs (npm run test:cluster), so compose and CI run the same binaries. Only
# official library images are used (pins and their sources: deploy/images.json).
# The first build compiles for ~10 minutes on 2 cores; later builds reuse the layer.
FROM golang:1.26-bookworm AS build
ARG TEMPORAL_SERVER_VERSION=v1.32.2
# CGO off: static binaries that run on any slim base.
RUN CGO_ENABLED=0 go install \
      go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION} \
      go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}

FROM debian:bookworm-slim
# ca-certificates: TLS to a managed PostgreSQL. No shell tools beyond Debian's base are needed: the
# health check uses bash's /dev/tcp.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --home-dir /etc/temporal temporal
COPY --from=build /go/bin/server /usr/local/bin/temporal-server
COPY --from=build /go/bin/sql /usr/local/bin/temporal-sql-tool
COPY deploy/temporal-schema.sh /usr/local/bin/temporal-schema
COPY deploy/temporal-server.sh /usr/local/bin/temporal-start
USER temporal
# The server config (deploy/temporal/postgresql.yaml, a template rendered from the environment)
# is mounted at /etc/temporal/config; see docker-compose.yml.
CMD ["temporal-start"]
