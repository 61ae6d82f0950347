#!/usr/bin/env bash
# Packs example-server as an MCP bundle: target/example-server.mcpb.
#
# The release binary, and the bundle's manifest.json written from Cargo.toml's
# [package.metadata.mcp] and ../tools by `toolmetadata manifest` (the build
# writes the same), packed by mcpb (@anthropic-ai/mcpb, pinned in
# package.json). A bundle holds one binary: pack it on each OS you ship for.
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
# PROFILE=debug packs the debug build (quicker, for trying the bundle out).
profile="${PROFILE:-release}"
stage="$target/mcpb/example-server"
rm -rf "$stage"
mkdir -p "$stage/server"

if [ "$profile" = release ]; then
    cargo build --release -p example-server
else
    cargo build -p example-server
fi
cargo run --quiet -p toolmetadata-build --features cli --bin toolmetadata -- \
    manifest tools --cargo-toml example-server/Cargo.toml --out "$target/mcpb/manifests"
cp "$target/mcpb/manifests/manifest.json" "$stage/manifest.json"
cp "$target/$profile/example-server" "$stage/server/example-server"

(cd example-server/bundle && { [ -x node_modules/.bin/mcpb ] || npm ci --no-audit --no-fund; })
mcpb=example-server/bundle/node_modules/.bin/mcpb
"$mcpb" validate "$stage/manifest.json"
"$mcpb" pack "$stage" "$target/example-server.mcpb" </dev/null
echo "packed $target/example-server.mcpb"
