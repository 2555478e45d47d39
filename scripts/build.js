#!/usr/bin/env node
'use strict'
// `npm run build`: builds the release addon, ptypilot.<platform>.node in the
// package root, with `napi build`.
//
// On Linux (x64, arm64) with glibc, when cargo-zigbuild and zig are installed
// (`pip install cargo-zigbuild`, which brings zig as the `ziglang` package),
// the addon is linked by zig against glibc 2.28, so that the binary loads on
// every distribution Node 20 supports; this is the build that is published.
// Without them it falls back to plain cargo, linked against this machine's
// glibc: fine for working on ptypilot here, not for publishing. (The two
// share the host build scripts and proc macros in target/release, so
// switching between them recompiles the dependencies once.)
//
// Usage: node scripts/build.js [--debug] [--print]
//   --debug   a debug build (plain cargo)
//   --print   print the `napi` arguments as JSON instead of building

const { spawnSync } = require('node:child_process')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
/** The oldest glibc the published Linux binaries support (Node 20 needs 2.28 too). */
const GLIBC_FLOOR = '2.28'
/** Rust's name for each Linux architecture a package is published for. */
const LINUX_ARCH = /** @type {Record<string, string>} */ ({ x64: 'x86_64', arm64: 'aarch64' })

/** @param {string} command @param {string[]} args */
function succeeds(command, args) {
  const result = spawnSync(command, args, { stdio: 'ignore' })
  return result.status === 0
}

/** True when `napi build --cross-compile` can link with zig here without installing anything. */
function zigAvailable() {
  if (!succeeds('cargo', ['zigbuild', '--help'])) return false
  // cargo-zigbuild runs `zig` from PATH, else `python3 -m ziglang`.
  return succeeds('zig', ['version']) || succeeds('python3', ['-m', 'ziglang', 'version'])
}

function isGlibc() {
  if (process.platform !== 'linux') return false
  const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport())
  return Boolean(report.header.glibcVersionRuntime)
}

function main() {
  const debug = process.argv.includes('--debug')
  // No generated JS loader (lib/binding.js is ours). The generated
  // declarations go to native.d.ts (a reference for contributors, not
  // shipped); napi's default would overwrite the hand-written index.d.ts.
  const args = ['build', '--platform', '--no-js', '--dts', 'native.d.ts']
  if (!debug) args.push('--release')
  const rustArch = LINUX_ARCH[process.arch]
  if (!debug && rustArch && isGlibc()) {
    if (zigAvailable()) {
      // napi passes the suffixed target to cargo-zigbuild, which builds
      // <arch>-unknown-linux-gnu and has zig link against that glibc.
      args.push('--cross-compile', '--target', `${rustArch}-unknown-linux-gnu.${GLIBC_FLOOR}`)
      console.error(`build: linking with zig against glibc ${GLIBC_FLOOR}`)
    } else {
      console.error(
        `build: cargo-zigbuild or zig not found; linking against this machine's glibc ` +
          `(the binary may not load on older systems; \`pip install cargo-zigbuild\` for the glibc ${GLIBC_FLOOR} build)`,
      )
    }
  }
  if (process.argv.includes('--print')) {
    console.log(JSON.stringify(args))
    return
  }
  const cli = path.join(path.dirname(require.resolve('@napi-rs/cli/package.json')), 'dist', 'cli.js')
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: ROOT, stdio: 'inherit' })
  if (result.error) throw result.error
  process.exit(result.status === null ? 1 : result.status)
}

main()
