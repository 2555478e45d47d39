'use strict'
// The native binding loader (hand-written; index.js is its only user).
//
// ptypilot ships its compiled addon in one npm package per platform
// (`ptypilot-linux-x64-gnu`, ...), listed as optionalDependencies of
// `ptypilot` so that npm installs only the one matching the machine. This
// module finds and loads the addon, in this order:
//
// 1. a local build, `ptypilot.<platform>.node` in the package root — what
//    `npm run build` writes in a clone of the repository;
// 2. the platform package `ptypilot-<platform>`, whose version must be the
//    same as this package's.
//
// When neither loads it throws one `ERR_NO_BINDING` error naming the
// platform, architecture and libc, the package it looked for, what happened
// at each attempt (not found, or found but failed to load and why) and how to
// fix it. Nothing here runs at install time. Which package serves which
// machine is lib/platform.js.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..')
const { name: PACKAGE_NAME, version: VERSION } = require('../package.json')

const { SUPPORTED, choosePackage, detectLibc, glibcVersion } = require('./platform.js')

/** One lookup: `{ what, location, status: 'loaded' | 'not found' | 'failed', detail }`. */
function attemptLocal(key) {
  const file = path.join(ROOT, `ptypilot.${key}.node`)
  const what = `local build ptypilot.${key}.node`
  if (!fs.existsSync(file)) return { what, location: file, status: 'not found' }
  try {
    return { what, location: file, status: 'loaded', binding: require(file) }
  } catch (err) {
    return { what, location: file, status: 'failed', detail: firstLine(err), error: err }
  }
}

function attemptPackage(packageName) {
  const what = `package ${packageName}`
  let manifest
  try {
    manifest = require.resolve(`${packageName}/package.json`, { paths: [ROOT] })
  } catch (err) {
    return { what, location: null, status: 'not found', error: err }
  }
  const location = path.dirname(manifest)
  let version
  try {
    version = JSON.parse(fs.readFileSync(manifest, 'utf8')).version
  } catch (err) {
    return { what, location, status: 'failed', detail: `unreadable package.json: ${firstLine(err)}`, error: err }
  }
  if (version !== VERSION) {
    // The addon's API moves with the JS layer; a mixed pair breaks in odd ways.
    return { what, location, status: 'failed', detail: `version ${version} is installed, but ${PACKAGE_NAME} ${VERSION} needs the same version` }
  }
  try {
    return { what, location, status: 'loaded', binding: require(location) }
  } catch (err) {
    return { what, location, status: 'failed', detail: firstLine(err), error: err }
  }
}

function firstLine(err) {
  const message = err && err.message ? String(err.message) : String(err)
  return message.split('\n')[0]
}

/**
 * The `ERR_NO_BINDING` error for a failed load: every attempt, the likely
 * reason, and the fix.
 */
function noBindingError({ platform, arch, libc, key, packageName, attempts }) {
  const glibc = libc === 'glibc' ? glibcVersion() : null
  const where = `${platform} ${arch}${libc ? ` (${libc}${glibc ? ` ${glibc}` : ''})` : ''}`
  const lines = [`ptypilot: could not load its native addon for ${where}.`]
  for (const a of attempts) {
    const at = a.location ? ` at ${a.location}` : ''
    lines.push(`  - ${a.what}: ${a.status === 'not found' ? 'not found' : `failed to load${at}: ${a.detail}`}`)
  }
  const needed = attempts.map((a) => /GLIBC_(\d+\.\d+)' not found/.exec(a.detail || '')).find(Boolean)
  if (needed) {
    lines.push(`This binary needs glibc ${needed[1]} or newer; this system has ${glibc || 'an older one'}.`)
  }
  const fromSource =
    'build the addon from source: in a clone of the ptypilot repository, with a Rust toolchain, ' +
    '`npm install && npm run build`, then install that folder'
  if (SUPPORTED.includes(key)) {
    lines.push(
      `To fix: install the platform package, \`npm install ${packageName}@${VERSION}\`. (npm installs it ` +
        `along with ${PACKAGE_NAME} unless optional dependencies were omitted, --omit=optional, or a lock ` +
        `file made on another platform left it out; removing node_modules and package-lock.json and ` +
        `installing again fixes that.) Or ${fromSource}.`,
    )
  } else {
    lines.push(
      `No prebuilt package exists for ${key}; published platforms: ${SUPPORTED.join(', ')}. ` +
        `To use ptypilot here, ${fromSource} (\`npm run build\` writes ptypilot.${key}.node, which this loader loads).`,
    )
  }
  const err = new Error(lines.join('\n'))
  err.code = 'ERR_NO_BINDING'
  err.platform = platform
  err.arch = arch
  err.libc = libc
  err.packageName = packageName
  err.attempts = attempts.map(({ what, location, status, detail }) => ({ what, location, status, detail }))
  const failed = attempts.find((a) => a.status === 'failed' && a.error)
  if (failed) err.cause = failed.error
  return err
}

/** Loads the addon for this machine or throws `ERR_NO_BINDING`. */
function loadBinding() {
  const { platform, arch } = process
  const libc = detectLibc()
  const { key, packageName } = choosePackage({ platform, arch, libc }, PACKAGE_NAME)
  const attempts = []
  for (const attempt of [() => attemptLocal(key), () => attemptPackage(packageName)]) {
    const result = attempt()
    if (result.status === 'loaded') return result.binding
    attempts.push(result)
  }
  throw noBindingError({ platform, arch, libc, key, packageName, attempts })
}

module.exports = loadBinding()
