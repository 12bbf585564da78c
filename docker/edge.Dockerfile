# The gateway agent with the register maps. Build from the repository root:
#   docker build -f docker/edge.Dockerfile -t pv-edge .
# Run with the hub-generated configuration and password mounted:
#   docker run -v ./gateway:/etc/pv-edge -v pv-edge-data:/var/lib/pv-edge pv-edge
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p pv-edge

FROM debian:bookworm-slim
RUN useradd --system --home /var/lib/pv-edge pv-edge && mkdir -p /var/lib/pv-edge /etc/pv-edge \
    && chown pv-edge /var/lib/pv-edge
COPY --from=build /src/target/release/pv-edge /usr/local/bin/pv-edge
# Where generated gateway configs look for maps (broker.gateway_maps_dir's default).
COPY firmware-configs /usr/share/pv-edge/firmware-configs
USER pv-edge
VOLUME /var/lib/pv-edge
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/pv-edge", "run", "--config", "/etc/pv-edge/pv-edge.toml"]
