#!/usr/bin/env node
'use strict'
// `npm run build:all`: builds the release addon for every published platform
// on this Linux x86-64 machine and puts each into its package folder,
// npm/<platform>/ptypilot.<platform>.node:
//
//   linux-x64-gnu    `npm run build` (rustup's Rust, linked by zig against glibc 2.28)
//   linux-arm64-gnu  Debian's Rust with its arm64 std, linked by zig against glibc 2.28
//   darwin-x64       Debian's Rust, -Zbuild-std, linked by zig; macOS 10.15 or newer
//   darwin-arm64     the same for arm64; macOS 11.0 or newer
//   win32-x64-gnu    Debian's Rust, -Zbuild-std, linked by mingw-w64 (not published: see
//                    npm/win32-x64-gnu/README.md)
//
// The macOS binaries get the install name `@rpath/ptypilot.<platform>.node`
// (not the build folder's path) and are stripped of local symbols by rustc
// with `rust-objcopy -x`, which keeps the linker's ad-hoc code signature
// valid. Each binary is then checked (scripts/check-binary.js). The
// toolchain comes from scripts/setup-cross.sh (checked first; run it once).
//
// Usage: node scripts/build-all.js [--only KEY[,KEY]] [--debug] [--clippy] [--tests]
//   --only    build only these platforms (e.g. --only darwin-arm64)
//   --debug   a debug build (Linux arm64 only: quicker to make, for a test
//             run under emulation, as CI's): linked the same way and checked,
//             put in target/cross/debug-addons/, never in npm/
//   --clippy  instead of building: `cargo clippy --all-targets -D warnings`
//             for the cross targets, in one cargo run (what CI runs)
//   --tests   instead of building: `cargo test --no-run` for the cross
//             targets (compiles and links every test executable)
//   --run     with --tests, Linux arm64 only: runs them too (`cargo test`;
//             the kernel starts them through qemu-user: scripts/test-arm64.sh)

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { PLATFORMS } = require('./platforms.js')
const { checkBinary } = require('./check-binary.js')

const ROOT = path.join(__dirname, '..')
/**
 * The cross builds' own target folder: another compiler than rustup's, so
 * another cache (PTYPILOT_CROSS_TARGET_DIR moves it).
 */
const CROSS_TARGET_DIR = process.env.PTYPILOT_CROSS_TARGET_DIR || path.join(ROOT, 'target', 'cross')

/**
 * The environment for Debian's toolchain building `platform`: its cargo and
 * rustc first on PATH, and the macOS deployment target and install name.
 * @param {import('./platforms.js').Platform} platform
 */
function crossEnv(platform) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, PATH: `/usr/bin:${process.env.PATH}`, CARGO_TARGET_DIR: CROSS_TARGET_DIR, RUSTC: '/usr/bin/rustc', CARGO: '/usr/bin/cargo' }
  // A rustup toolchain chosen by the caller's environment must not leak in.
  for (const name of ['RUSTUP_TOOLCHAIN', 'RUSTC_WRAPPER', 'RUSTFLAGS', 'CARGO_BUILD_RUSTFLAGS']) delete env[name]
  if (platform.buildStd) env.RUSTC_BOOTSTRAP = '1'
  if (platform.format === 'pe') {
    // napi-build's GNU setup links against a `libnode.dll`: an import library of node.exe's
    // Node-API names (scripts/windows/node-api.def) stands in for it.
    const lib = path.join(ROOT, 'target', 'windows-lib')
    fs.mkdirSync(lib, { recursive: true })
    run('x86_64-w64-mingw32-dlltool', ['-d', path.join(__dirname, 'windows', 'node-api.def'), '-D', 'node.exe', '-l', path.join(lib, 'libnode.dll')])
    env.LIBNODE_PATH = lib
    env[`CARGO_TARGET_${platform.target.toUpperCase().replace(/-/g, '_')}_LINKER`] = 'x86_64-w64-mingw32-gcc'
  }
  if (platform.macos) {
    env.MACOSX_DEPLOYMENT_TARGET = platform.macos
    const flags = `CARGO_TARGET_${platform.target.toUpperCase().replace(/-/g, '_')}_RUSTFLAGS`
    env[flags] = `-C link-arg=-Wl,-install_name,@rpath/ptypilot.${platform.key}.node`
  }
  return env
}

/** @param {import('./platforms.js').Platform} platform */
function buildStdArgs(platform) {
  return platform.buildStd ? ['-Zbuild-std=std,panic_abort'] : []
}

/**
 * Runs a command, inheriting the terminal; throws when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
function run(command, args, options = {}) {
  console.error(`build-all: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options })
  if (result.error) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`)
}

/** Fails early, naming what is missing, when the cross toolchain is not set up. */
function checkToolchain() {
  const result = spawnSync(path.join(__dirname, 'setup-cross.sh'), ['--check'], { stdio: 'inherit' })
  if (result.status !== 0) throw new Error('the cross toolchain is not set up: run scripts/setup-cross.sh (Debian 12, root or sudo)')
}

/** Where `--debug` puts a debug binary (never npm/, which holds the published ones). */
const DEBUG_ADDONS = path.join(CROSS_TARGET_DIR, 'debug-addons')

/**
 * Builds one platform's binary and puts it into npm/<key>/ (with `debug`, a
 * debug build into DEBUG_ADDONS). Returns its path.
 * @param {import('./platforms.js').Platform} platform
 * @param {boolean} [debug]
 */
function build(platform, debug = false) {
  const name = `ptypilot.${platform.key}.node`
  if (debug && !(platform.format === 'elf' && platform.toolchain === 'debian')) {
    throw new Error(`--debug: only for Linux arm64 (a test build), not ${platform.key}`)
  }
  if (debug) fs.mkdirSync(DEBUG_ADDONS, { recursive: true })
  const dest = debug ? path.join(DEBUG_ADDONS, name) : path.join(ROOT, 'npm', platform.key, name)
  if (platform.toolchain === 'rustup') {
    run(process.execPath, [path.join(__dirname, 'build.js')])
    fs.copyFileSync(path.join(ROOT, name), dest)
    return dest
  }
  if (platform.format === 'pe') {
    run('/usr/bin/cargo', ['build', '--release', '--lib', '--target', platform.target, ...buildStdArgs(platform)], { env: crossEnv(platform) })
    fs.copyFileSync(path.join(CROSS_TARGET_DIR, platform.target, 'release', 'ptypilot.dll'), dest)
    return dest
  }
  // cargo-zigbuild reads a glibc version after the Linux triple.
  const target = platform.glibc ? `${platform.target}.${platform.glibc}` : platform.target
  const profile = debug ? 'debug' : 'release'
  run('cargo-zigbuild', ['zigbuild', ...(debug ? [] : ['--release']), '--lib', '--target', target, ...buildStdArgs(platform)], { env: crossEnv(platform) })
  const file = platform.format === 'macho' ? 'libptypilot.dylib' : 'libptypilot.so'
  fs.copyFileSync(path.join(CROSS_TARGET_DIR, platform.target, profile, file), dest)
  return dest
}

/**
 * `cargo clippy --all-targets -D warnings` for the cross platforms, in one
 * cargo run: the build scripts and proc macros are compiled once for all of
 * them, and every standard library from source (-Zbuild-std), as macOS
 * needs. `--all-targets` type-checks the tests and benches too.
 * @param {import('./platforms.js').Platform[]} platforms
 */
function clippy(platforms) {
  const all = platforms.filter((p) => !p.libOnly)
  const libOnly = platforms.filter((p) => p.libOnly)
  for (const [group, scope] of /** @type {const} */ ([[all, '--all-targets'], [libOnly, '--lib']])) {
    if (group.length === 0) continue
    const env = Object.assign({}, ...group.map(crossEnv))
    env.RUSTC_BOOTSTRAP = '1'
    const targets = group.flatMap((p) => ['--target', p.target])
    run('/usr/bin/cargo', ['clippy', scope, ...targets, '-Zbuild-std=std,panic_abort', '--', '-D', 'warnings'], { env })
  }
}

/**
 * `cargo test --no-run` for one cross platform: compiles and links every
 * test executable (with zig for macOS; with Debian's aarch64 gcc for Linux,
 * since zig's glibc 2.28 stubs lack `gettid`). With `execute`, a Linux
 * platform's tests also run (through binfmt_misc for another architecture).
 * @param {import('./platforms.js').Platform} platform
 * @param {boolean} [execute]
 */
function testsBuild(platform, execute = false) {
  const env = crossEnv(platform)
  if (platform.format === 'elf') {
    env.CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER = 'aarch64-linux-gnu-gcc'
    run('/usr/bin/cargo', ['test', ...(execute ? [] : ['--no-run']), '--target', platform.target], { env })
  } else {
    run('cargo-zigbuild', ['test', '--no-run', '--target', platform.target, ...buildStdArgs(platform)], { env })
  }
}

function main() {
  const argv = process.argv.slice(2)
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : null
  const execute = argv.includes('--run')
  const debug = argv.includes('--debug')
  const mode = argv.includes('--clippy') ? 'clippy' : argv.includes('--tests') ? 'tests' : 'build'
  let platforms = only ? only.map((k) => require('./platforms.js').platform(k)) : PLATFORMS
  if (mode !== 'build') platforms = platforms.filter((p) => p.toolchain === 'debian')
  // The tests drive Unix programs: a library-only platform has clippy of its library alone.
  if (mode === 'tests') platforms = platforms.filter((p) => !p.libOnly)
  if (platforms.some((p) => p.toolchain === 'debian')) checkToolchain()
  const started = Date.now()
  if (mode === 'clippy') {
    clippy(platforms)
    console.error(`build-all: clippy of ${platforms.map((p) => p.key).join(', ')} done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    return
  }
  const times = []
  for (const platform of platforms) {
    const t0 = Date.now()
    if (mode === 'build') {
      const file = build(platform, debug)
      const problems = checkBinary(file, platform)
      const size = (fs.statSync(file).size / 1024 / 1024).toFixed(1)
      if (problems.length > 0) throw new Error(`${path.relative(ROOT, file)} fails the binary check:\n  ${problems.join('\n  ')}`)
      console.error(`build-all: ${path.relative(ROOT, file)} (${size} MiB) passes the binary check`)
    } else {
      if (execute && platform.format !== 'elf') throw new Error(`--run: ${platform.key}'s tests cannot run here`)
      testsBuild(platform, execute)
    }
    times.push(`${platform.key} ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  }
  console.error(`build-all: ${mode} done in ${((Date.now() - started) / 1000).toFixed(0)} s (${times.join(', ')})`)
}

if (require.main === module) {
  try {
    main()
  } catch (err) {
    console.error(`build-all: ${err instanceof Error ? err.message : err}`)
    process.exit(1)
  }
}

module.exports = { crossEnv, CROSS_TARGET_DIR }
