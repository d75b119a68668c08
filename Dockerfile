# The agent worker image (docker-compose.yml). Tools, model providers and API keys live here.
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm install --no-save typescript@5.9
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY examples ./examples
RUN npx tsc -p tsconfig.build.json
USER node
CMD ["node", "dist/client/cli.js", "worker"]
