# The team service: the bundled Fieldlens service on PostgreSQL + PostGIS, many users, one catalog.
# See electron/local-service/README.md, "Team service". Build: docker build -t fieldlens-service .
FROM node:22-bookworm-slim AS build
WORKDIR /app
# Native modules (better-sqlite3 for the plugins' local database) build from source.
RUN apt-get update && apt-get install -y --no-install-recommends build-essential python3 libsecret-1-dev \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx electron-vite build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends libsecret-1-0 && rm -rf /var/lib/apt/lists/* \
  && mkdir /data && chown node:node /data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/out out
COPY --from=build /app/resources resources
USER node
VOLUME /data
EXPOSE 8080 8081
# Readiness: the service answers and its database does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# FIELDLENS_DATABASE_URL selects PostgreSQL; the users file holds scrypt hashes of the keys.
ENTRYPOINT ["node", "out/main/service.js", "--host", "0.0.0.0", "--port", "8080", "--search-port", "8081", "--data-dir", "/data"]
CMD ["--users-file", "/run/secrets/fieldlens-users"]
