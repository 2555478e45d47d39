#!/usr/bin/env node
'use strict'
// `npm run version:sync`: the root package.json's `version` is the one
// version source. This script writes it into every platform package
// (npm/*/package.json) and into the root's `optionalDependencies` (one entry
// per platform package, at exactly that version), and mirrors both into the
// root entry of package-lock.json, and into the crate's version in Cargo.toml
// and Cargo.lock. `npm version <new>` runs it (the `version` script), so a
// release bumps everything together.
//
// Usage: node scripts/version-sync.js [--check] [--root DIR]
//   --check   change nothing; list what is out of step and exit 1 if anything is
//   --root    the package root (default: this repository)

const fs = require('node:fs')
const path = require('node:path')

/** @param {string} file @returns {any} */
function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

/** @param {string} file @param {unknown} value */
function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`)
}

/**
 * The platform package folders under npm/, sorted.
 * @param {string} root
 * @returns {string[]}
 */
function platformDirs(root) {
  const npmDir = path.join(root, 'npm')
  return fs
    .readdirSync(npmDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(npmDir, entry.name, 'package.json')))
    .map((entry) => path.join(npmDir, entry.name))
    .sort()
}

/** @param {unknown} a @param {unknown} b */
function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * Brings every version into step with the root's; returns the list of
 * changes (`'<file>: <what>'`), made only when `write` is true.
 * @param {string} root the package root (holds package.json and npm/)
 * @param {boolean} write
 * @returns {string[]}
 */
function sync(root, write) {
  const changes = []
  const rootFile = path.join(root, 'package.json')
  const pkg = readJson(rootFile)
  const { version } = pkg

  /** @type {Record<string, string>} */
  const optional = {}
  for (const dir of platformDirs(root)) {
    const file = path.join(dir, 'package.json')
    const platformPkg = readJson(file)
    // A package marked `unlisted` (built and checked, never run on its
    // platform: npm/win32-x64-gnu) keeps the version but is not handed to users.
    if (!platformPkg.unlisted) optional[platformPkg.name] = version
    if (platformPkg.version !== version) {
      changes.push(`${path.relative(root, file)}: version ${platformPkg.version} -> ${version}`)
      platformPkg.version = version
      if (write) writeJson(file, platformPkg)
    }
  }
  const sorted = Object.fromEntries(Object.entries(optional).sort(([a], [b]) => a.localeCompare(b)))

  if (!sameJson(pkg.optionalDependencies, sorted)) {
    changes.push(`package.json: optionalDependencies ${JSON.stringify(pkg.optionalDependencies)} -> ${JSON.stringify(sorted)}`)
    pkg.optionalDependencies = sorted
    if (write) writeJson(rootFile, pkg)
  }

  const lockFile = path.join(root, 'package-lock.json')
  if (fs.existsSync(lockFile)) {
    const lock = readJson(lockFile)
    const entry = lock.packages && lock.packages['']
    const stale = lock.version !== version || !entry || entry.version !== version || !sameJson(entry.optionalDependencies, sorted)
    if (stale) {
      changes.push(`package-lock.json: root version and optionalDependencies -> ${version}`)
      lock.version = version
      if (entry) {
        entry.version = version
        entry.optionalDependencies = sorted
      }
      if (write) writeJson(lockFile, lock)
    }
  }
  for (const [name, pattern] of CARGO_FILES) {
    const file = path.join(root, name)
    if (!fs.existsSync(file)) continue
    const text = fs.readFileSync(file, 'utf8')
    const m = pattern.exec(text)
    if (!m) {
      changes.push(`${name}: no version of the ptypilot crate found`)
      continue
    }
    if (m[2] !== version) {
      changes.push(`${name}: version ${m[2]} -> ${version}`)
      if (write) fs.writeFileSync(file, text.slice(0, m.index) + m[1] + version + text.slice(m.index + m[0].length - 1))
    }
  }
  return changes
}

/**
 * Where the crate's version is: `[package]`'s in Cargo.toml, the ptypilot entry's in Cargo.lock.
 * @type {[string, RegExp][]}
 */
const CARGO_FILES = [
  ['Cargo.toml', /^(\[package\][^[]*?\nversion = ")([^"\n]*)"/m],
  ['Cargo.lock', /^(name = "ptypilot"\nversion = ")([^"\n]*)"/m],
]

function main() {
  const args = process.argv.slice(2)
  const check = args.includes('--check')
  const rootAt = args.indexOf('--root')
  const root = rootAt === -1 ? path.join(__dirname, '..') : path.resolve(args[rootAt + 1])
  const changes = sync(root, !check)
  for (const change of changes) console.log(change)
  if (check && changes.length > 0) {
    console.error('versions are out of step; run `npm run version:sync`')
    process.exit(1)
  }
  if (!check) console.log(changes.length === 0 ? 'versions in step' : `${changes.length} change(s) written`)
}

if (require.main === module) main()

module.exports = { sync }
