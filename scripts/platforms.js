'use strict'
// The platforms ptypilot publishes a native package for, and how each one's
// binary is built and what it must look like. One table for the build
// (scripts/build-all.js), the packaging (scripts/pack-local.js) and the
// binary check (scripts/check-binary.js, __test__/binaries.test.ts).
//
// `toolchain`: 'rustup' is the machine's default Rust (the Linux x64 build
// and the tests); 'debian' is Debian 12's rustc-web in /usr/bin, with its
// arm64 standard library, and `-Zbuild-std` from rust-web-src where no
// compiled standard library exists for the target (macOS). Set up by
// scripts/setup-cross.sh.

/**
 * @typedef {object} Platform
 * @property {string} key          npm/<key>/, `ptypilot-<key>`, `ptypilot.<key>.node`
 * @property {string} target       Rust's target triple
 * @property {'rustup' | 'debian'} toolchain
 * @property {boolean} buildStd    the standard library is compiled from source (-Zbuild-std)
 * @property {'elf' | 'macho' | 'pe'} format
 * @property {string} machine      the architecture as the binary check names it
 * @property {string} [glibc]      Linux: the newest glibc symbol version allowed
 * @property {string} [macos]      macOS: the deployment target (LC_BUILD_VERSION minos), Node 20's minimum
 * @property {string} os           npm's `os`
 * @property {string} cpu          npm's `cpu`
 * @property {string} [libc]       npm's `libc`
 * @property {boolean} [unlisted]  built and checked, but not in optionalDependencies nor the
 *                                 loader's published list: it never ran on its platform
 * @property {boolean} [libOnly]    clippy and the test build cover the library only (the tests
 *                                 drive Unix programs)
 */

/** @type {Platform[]} */
const PLATFORMS = [
  { key: 'linux-x64-gnu', target: 'x86_64-unknown-linux-gnu', toolchain: 'rustup', buildStd: false, format: 'elf', machine: 'x86-64', glibc: '2.28', os: 'linux', cpu: 'x64', libc: 'glibc' },
  { key: 'linux-arm64-gnu', target: 'aarch64-unknown-linux-gnu', toolchain: 'debian', buildStd: false, format: 'elf', machine: 'aarch64', glibc: '2.28', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  { key: 'darwin-x64', target: 'x86_64-apple-darwin', toolchain: 'debian', buildStd: true, format: 'macho', machine: 'x86_64', macos: '10.15', os: 'darwin', cpu: 'x64' },
  { key: 'darwin-arm64', target: 'aarch64-apple-darwin', toolchain: 'debian', buildStd: true, format: 'macho', machine: 'arm64', macos: '11.0', os: 'darwin', cpu: 'arm64' },
  // Built with mingw-w64 (GNU): Node-API is a C ABI, so it loads in Node's MSVC build.
  { key: 'win32-x64-gnu', target: 'x86_64-pc-windows-gnu', toolchain: 'debian', buildStd: true, format: 'pe', machine: 'x86-64', os: 'win32', cpu: 'x64', unlisted: true, libOnly: true },
]

/** @param {string} key @returns {Platform} */
function platform(key) {
  const found = PLATFORMS.find((p) => p.key === key)
  if (!found) throw new Error(`unknown platform ${key}; known: ${PLATFORMS.map((p) => p.key).join(', ')}`)
  return found
}

module.exports = { PLATFORMS, platform }
