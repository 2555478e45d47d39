'use strict'
// Which native package serves a machine: the platform key (`linux-x64-gnu`,
// `darwin-arm64`, ...) from the OS, the CPU architecture and, on Linux, the
// C library. A pure function of its inputs, so the choice for every
// platform is tested on any machine (lib/binding.js applies it to this one).

const fs = require('node:fs')

/** The platforms a package is published for (the `npm/` folder; scripts/platforms.js builds them). */
const SUPPORTED = ['linux-x64-gnu', 'linux-arm64-gnu', 'darwin-x64', 'darwin-arm64']

/**
 * The platform key of the packages and files for a machine.
 * @param {string} platform `process.platform`
 * @param {string} arch `process.arch`
 * @param {'glibc' | 'musl' | null} libc the C library on Linux, else null
 * @returns {string}
 */
function platformKey(platform, arch, libc) {
  if (platform === 'linux') return `linux-${arch}-${libc === 'musl' ? 'musl' : 'gnu'}`
  // Windows: built with the GNU toolchain (mingw-w64); Node-API is a C ABI, so it loads in
  // Node's MSVC build (see npm/win32-x64-gnu/README.md).
  if (platform === 'win32') return `win32-${arch}-gnu`
  return `${platform}-${arch}`
}

/**
 * The package the loader looks for on a machine, and whether it is
 * published.
 * @param {{ platform: string, arch: string, libc: 'glibc' | 'musl' | null }} machine
 * @param {string} [packageName] the root package's name
 * @returns {{ key: string, packageName: string, file: string, published: boolean }}
 */
function choosePackage({ platform, arch, libc }, packageName = 'ptypilot') {
  const key = platformKey(platform, arch, libc)
  return { key, packageName: `${packageName}-${key}`, file: `ptypilot.${key}.node`, published: SUPPORTED.includes(key) }
}

/** The running glibc's version (`'2.36'`), or null when it is not glibc. */
function glibcVersion() {
  if (process.platform !== 'linux' || !process.report) return null
  // excludeNetwork (Node 20.13+) keeps the report from resolving host names.
  const report = /** @type {NodeJS.ProcessReport & { excludeNetwork?: boolean }} */ (process.report)
  const excluded = report.excludeNetwork
  try {
    report.excludeNetwork = true
    const version = /** @type {{ header: { glibcVersionRuntime?: unknown } }} */ (report.getReport()).header.glibcVersionRuntime
    return typeof version === 'string' ? version : null
  } catch {
    return null
  } finally {
    report.excludeNetwork = excluded
  }
}

/**
 * This machine's C library: `'glibc'`, `'musl'`, or `null` off Linux.
 * @returns {'glibc' | 'musl' | null}
 */
function detectLibc() {
  if (process.platform !== 'linux') return null
  // The ldd script names its libc; reading it is cheaper than a process report.
  try {
    return fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl') ? 'musl' : 'glibc'
  } catch {
    return glibcVersion() === null ? 'musl' : 'glibc'
  }
}

module.exports = { SUPPORTED, platformKey, choosePackage, detectLibc, glibcVersion }
