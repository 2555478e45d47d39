#!/bin/sh
# Runs cargo for x86_64-pc-windows-gnu on Linux: Debian's rustc-web (Rust
# 1.96) with -Zbuild-std from rust-web-src (RUSTC_BOOTSTRAP=1), mingw-w64 as
# the linker, and an import library for node.exe (from node-api.def) where
# napi-build's gnu setup looks for libnode.dll (LIBNODE_PATH).
#   scripts/windows/cargo.sh check|clippy|build [cargo args...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="$root/target/windows-lib"
mkdir -p "$lib"
if [ ! -f "$lib/libnode.dll" ] || [ "$here/node-api.def" -nt "$lib/libnode.dll" ]; then
  x86_64-w64-mingw32-dlltool -d "$here/node-api.def" -D node.exe -l "$lib/libnode.dll"
fi
# Debian's cargo and clippy first (rustup's stable has no -Zbuild-std).
export PATH="/usr/bin:$PATH"
export RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc LIBNODE_PATH="$lib"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
cmd=$1
shift
# The target flags go before the caller's arguments (which may end in
# `-- -D warnings` for clippy).
exec /usr/bin/cargo "$cmd" --target x86_64-pc-windows-gnu -Zbuild-std=std,panic_abort "$@"
