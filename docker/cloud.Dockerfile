# The hub with its embedded console, as one image. Build from the repository root:
#   docker build -f docker/cloud.Dockerfile -t pv-cloud .
FROM node:20-bookworm AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
COPY --from=web /src/web/dist web/dist
RUN cargo build --release --locked -p pv-cloud

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home /var/lib/pv pv && mkdir -p /var/lib/pv && chown pv /var/lib/pv
COPY --from=build /src/target/release/pv-cloud /usr/local/bin/pv-cloud
USER pv
ENV PV_LISTEN=0.0.0.0:8080 PV_DATA_DIR=/var/lib/pv PV_LOG__JSON=true
VOLUME /var/lib/pv
EXPOSE 8080 1883
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/pv-cloud"]
