#!/usr/bin/env node
'use strict'
// `npm run pack:local`: builds the release addon (`npm run build`) and writes
// two tarballs, ready for `npm install <dir>/*.tgz` on this platform:
//
//   ptypilot-<version>.tgz                 the JS, the types and the loader
//   ptypilot-<platform>-<version>.tgz      npm/<platform>/ with the .node file
//
// The platform package is packed from a scratch copy of npm/<platform>/
// (packPlatform packs any platform's package, given its binary). On Linux it
// prints the highest glibc symbol version the binary needs (objdump -T).
//
// With --all it packs every published platform's package instead, from the
// binaries `npm run build:all` put into npm/<platform>/ (the cross toolchain
// of scripts/setup-cross.sh builds them).
//
// Usage: node scripts/pack-local.js [--out DIR] [--no-build] [--all]
//   --out       where the tarballs go (default: dist/)
//   --no-build  pack the addon(s) already built
//   --all       the root package and all four platform packages

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')

/** The platform key of this machine's package (`linux-x64-gnu`, `darwin-arm64`, ...). */
function hostKey() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport())
    const gnu = Boolean(report.header.glibcVersionRuntime)
    return `linux-${arch}-${gnu ? 'gnu' : 'musl'}`
  }
  return `${platform}-${arch}`
}

/**
 * Runs a program to completion; its stdout, or an error with its output.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} options
 * @returns {string}
 */
function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options })
  const output = (/** @type {string | null} */ (result.stderr) || '') + (/** @type {string | null} */ (result.stdout) || '')
  if (result.error) throw result.error
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${output}`)
  }
  return /** @type {string} */ (result.stdout)
}

/** @typedef {{ file: string, size: number, unpackedSize: number, files: string[] }} Pack a tarball, its sizes and the paths in it */

/**
 * `npm pack` of the package in `dir`, written to `out`.
 * @param {string} dir
 * @param {string} out
 * @returns {Pack}
 */
function npmPack(dir, out) {
  const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir }))
  const files = /** @type {{ path: string }[]} */ (info.files).map((f) => f.path)
  return { file: path.join(out, info.filename), size: info.size, unpackedSize: info.unpackedSize, files }
}

/**
 * The highest `GLIBC_x.y` symbol version `file` needs, or null (not an ELF
 * file, or objdump missing).
 * @param {string} file
 * @returns {string | null}
 */
function maxGlibc(file) {
  const result = spawnSync('objdump', ['-T', file], { encoding: 'utf8' })
  if (result.status !== 0) return null
  const versions = [...new Set(result.stdout.match(/GLIBC_[0-9.]+/g) || [])].map((v) => v.slice('GLIBC_'.length))
  if (versions.length === 0) return null
  const parts = (/** @type {string} */ v) => v.split('.').map(Number)
  return versions.sort((a, b) => {
    const [x, y] = [parts(a), parts(b)]
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0)
    }
    return 0
  })[versions.length - 1]
}

/**
 * Packs both tarballs into `out`, after `npm run build` unless `build` is false.
 * `glibc` is the highest glibc symbol version the addon needs (Linux only).
 * @param {{ out?: string, build?: boolean }} [options]
 * @returns {{ root: Pack, platform: Pack, key: string, glibc: string | null }}
 */
function packLocal({ out = path.join(ROOT, 'dist'), build = true } = {}) {
  if (build) run('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
  const key = hostKey()
  const binary = path.join(ROOT, `ptypilot.${key}.node`)
  const template = path.join(ROOT, 'npm', key)
  if (!fs.existsSync(template)) throw new Error(`no platform package folder npm/${key} (published platforms only)`)
  if (!fs.existsSync(binary)) throw new Error(`${path.basename(binary)} is missing; run \`npm run build\` first`)
  fs.mkdirSync(out, { recursive: true })
  const platformPack = packPlatform(key, binary, out)
  const rootPack = npmPack(ROOT, out)
  return { root: rootPack, platform: platformPack, key, glibc: process.platform === 'linux' ? maxGlibc(binary) : null }
}

/**
 * `npm pack` of the platform package `key` (npm/<key>/) with the binary
 * `binary` and the licence, into `out`: packed from a scratch copy, so npm/
 * itself is left as it was. Any published platform can be packed here, not
 * only this machine's (the binaries `npm run build:all` puts into npm/).
 * @param {string} key
 * @param {string} binary
 * @param {string} out
 * @returns {Pack}
 */
function packPlatform(key, binary, out) {
  const template = path.join(ROOT, 'npm', key)
  const name = `ptypilot.${key}.node`
  fs.mkdirSync(out, { recursive: true })
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-pack-'))
  try {
    for (const file of ['package.json', 'README.md']) fs.copyFileSync(path.join(template, file), path.join(stage, file))
    fs.copyFileSync(binary, path.join(stage, name))
    fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(stage, 'LICENSE'))
    return npmPack(stage, out)
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

/**
 * One line about a tarball: its path, sizes and file count.
 * @param {Pack} pack
 */
function describePack(pack) {
  const kib = (/** @type {number} */ n) => `${(n / 1024).toFixed(1)} KiB`
  return `${pack.file}: ${kib(pack.size)} packed, ${kib(pack.unpackedSize)} unpacked, ${pack.files.length} files`
}

/**
 * The root tarball and one tarball per published platform, from npm/<key>/'s
 * binaries (after `npm run build:all`, run first unless `build` is false).
 * @param {{ out?: string, build?: boolean }} [options]
 * @returns {Pack[]}
 */
function packAll({ out = path.join(ROOT, 'dist'), build = true } = {}) {
  const { PLATFORMS } = require('./platforms.js')
  if (build) run(process.execPath, [path.join(__dirname, 'build-all.js')], { cwd: ROOT, stdio: 'inherit' })
  // An unlisted platform (built and checked, never run on its platform) is not packed for users.
  const published = PLATFORMS.filter((/** @type {{ unlisted?: boolean }} */ p) => !p.unlisted)
  const packs = published.map((/** @type {{ key: string }} */ p) => {
    const binary = path.join(ROOT, 'npm', p.key, `ptypilot.${p.key}.node`)
    if (!fs.existsSync(binary)) throw new Error(`npm/${p.key}/${path.basename(binary)} is missing; run \`npm run build:all\` first`)
    return packPlatform(p.key, binary, out)
  })
  return [npmPack(ROOT, out), ...packs]
}

function main() {
  const args = process.argv.slice(2)
  const outAt = args.indexOf('--out')
  const out = outAt === -1 ? path.join(ROOT, 'dist') : path.resolve(args[outAt + 1])
  const build = !args.includes('--no-build')
  if (args.includes('--all')) {
    for (const pack of packAll({ out, build })) console.log(describePack(pack))
    return
  }
  const result = packLocal({ out, build })
  for (const pack of [result.root, result.platform]) console.log(describePack(pack))
  if (result.glibc) console.log(`highest glibc symbol version the addon needs: GLIBC_${result.glibc}`)
}

if (require.main === module) main()

module.exports = { packLocal, packPlatform, packAll, maxGlibc, hostKey, describePack }
