# The agent worker image (docker-compose.yml). Tools, model providers and API keys live here.
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock lists only the Linux builds of some optional native
# packages, which `npm ci` refuses (see .ci/run); the locked versions are installed either way.
RUN npm install --omit=dev --no-audit --no-fund && npm install --no-save --no-audit --no-fund typescript@5.9
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY examples ./examples
RUN npx tsc -p tsconfig.build.json
USER node
CMD ["node", "dist/client/cli.js", "worker"]
