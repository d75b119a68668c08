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
RUN npm pack --pack-destination /tmp \
  && node -p "require('./package-lock.json').packages['node_modules/@aws-sdk/client-s3'].version" > /tmp/s3-client-version

FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=build /tmp/durable-agents-*.tgz /tmp/s3-client-version /tmp/
# With the optional S3 client (the version this repository tests with), so AGENT_ARTIFACT_STORE=s3://…
# works in the image: without it a worker refuses to start with that setting.
RUN npm init -y >/dev/null \
  && npm install --no-audit --no-fund /tmp/durable-agents-*.tgz "@aws-sdk/client-s3@$(cat /tmp/s3-client-version)" \
  && rm /tmp/durable-agents-*.tgz /tmp/s3-client-version \
  && mkdir -p /app/.temporal-data /data && chown node /app/.temporal-data /data
# Not root. /data (artifacts, AGENT_DATA_DIR) is the node user's; a named volume mounted there
# starts with that ownership.
USER node
# Add your own tools with --tools /app/tools.js (a JavaScript module exporting `tools`).
CMD ["npx", "--no-install", "durable-agents", "worker"]
