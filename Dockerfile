# The agent worker image (docker-compose.yml). Tools, model providers and API keys live here.
# Base image pinned in deploy/images.json (an LTS Node on Debian bookworm).
# Built the way users install the runtime: the package is packed (compiled JS, types and the
# prebuilt workflow bundle), then installed into a fresh app with its Temporal and zod peers.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock lists only the Linux builds of some optional native
# packages, which `npm ci` refuses (see .ci/run); the locked versions are installed either way.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md LICENSE ./
COPY scripts ./scripts
COPY src ./src
COPY examples ./examples
COPY docs ./docs
# prepack runs the build (tsc, then the workflow bundle).
# The optional peers (S3 client, pg, OpenTelemetry) at the versions this repository tests with.
RUN npm pack --pack-destination /tmp \
  && node -e "const lock = require('./package-lock.json'); const meta = require('./package.json').peerDependenciesMeta; console.log(Object.keys(meta).filter((name) => meta[name].optional).map((name) => name + '@' + lock.packages['node_modules/' + name].version).join(' '))" > /tmp/optional-peers

FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=build /tmp/durable-agents-*.tgz /tmp/optional-peers /tmp/
# With every optional peer, so each documented worker setting works in the image:
# AGENT_ARTIFACT_STORE=s3://… (@aws-sdk/client-s3), AGENT_MEMORY_URL (pg), OTEL_* (OpenTelemetry).
# Without them a worker refuses to start with that setting and names the package.
RUN npm init -y >/dev/null \
  && npm install --no-audit --no-fund /tmp/durable-agents-*.tgz $(cat /tmp/optional-peers) \
  && rm /tmp/durable-agents-*.tgz /tmp/optional-peers \
  && mkdir -p /app/.temporal-data /data && chown node /app/.temporal-data /data
# Not root. /data (artifacts, AGENT_DATA_DIR) is the node user's; a named volume mounted there
# starts with that ownership.
USER node
# Add your own tools with --tools /app/tools.js (a JavaScript module exporting `tools`).
CMD ["npx", "--no-install", "durable-agents", "worker"]
