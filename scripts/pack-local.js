#!/usr/bin/env node
'use strict'
// `npm run pack:local`: builds the release addon (`npm run build`) and writes
// two tarballs, ready for `npm install <dir>/*.tgz` on this platform:
//
//   ptypilot-<version>.tgz                 the JS, the types and the loader
//   ptypilot-<platform>-<version>.tgz      npm/<platform>/ with the .node file
//
// The platform package is packed from a scratch copy of npm/<platform>/, so
// the repository's npm/ folder never holds a binary. On Linux it prints the
// highest glibc symbol version the binary needs (objdump -T).
//
// Usage: node scripts/pack-local.js [--out DIR] [--no-build]
//   --out       where the tarballs go (default: dist/)
//   --no-build  pack the addon already built in the package root

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

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'ptypilot-pack-'))
  try {
    fs.cpSync(template, stage, { recursive: true })
    fs.copyFileSync(binary, path.join(stage, path.basename(binary)))
    fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(stage, 'LICENSE'))
    const platformPack = npmPack(stage, out)
    const rootPack = npmPack(ROOT, out)
    return { root: rootPack, platform: platformPack, key, glibc: process.platform === 'linux' ? maxGlibc(binary) : null }
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

function main() {
  const args = process.argv.slice(2)
  const outAt = args.indexOf('--out')
  const out = outAt === -1 ? path.join(ROOT, 'dist') : path.resolve(args[outAt + 1])
  const result = packLocal({ out, build: !args.includes('--no-build') })
  for (const pack of [result.root, result.platform]) console.log(describePack(pack))
  if (result.glibc) console.log(`highest glibc symbol version the addon needs: GLIBC_${result.glibc}`)
}

if (require.main === module) main()

module.exports = { packLocal, maxGlibc, hostKey, describePack }
