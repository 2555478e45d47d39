// The native binding loader (lib/binding.js) in a child process, in a scratch
// package root: nothing found, found but broken (bad file, wrong glibc, wrong
// version), found in the platform package, an unsupported platform.
import { describe, it, expect, beforeEach } from 'vitest'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { have } from './helpers.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }
const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } }
const glibc = report.header.glibcVersionRuntime
/** Linux with glibc on a published architecture (x64, or arm64 as `npm run test:arm64` runs it). */
const onLinuxGnu = process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch) && glibc !== undefined
const key = `linux-${process.arch}-gnu`
/** The machine's `cc` builds for this process's architecture (not so under emulation: the host's). */
const ccForThisArch = (() => {
  const r = spawnSync('cc', ['-dumpmachine'], { encoding: 'utf8' })
  const prefix = { x64: 'x86_64-', arm64: 'aarch64-' }[process.arch as 'x64' | 'arm64']
  return r.status === 0 && prefix !== undefined && r.stdout.startsWith(prefix)
})()
const builtAddon = join(repo, `ptypilot.${key}.node`)

type Outcome = {
  loaded?: string[]
  code?: string
  message?: string
  platform?: string
  arch?: string
  libc?: string
  packageName?: string
  attempts?: { what: string; location: string | null; status: string; detail?: string }[]
  cause?: string
}

let root = ''

beforeEach(() => {
  // A package root as users get it: package.json, lib/binding.js and
  // lib/platform.js, no addon.
  root = mkdtempSync(join(tmpdir(), 'ptypilot-binding-'))
  mkdirSync(join(root, 'lib'))
  copyFileSync(join(repo, 'lib', 'binding.js'), join(root, 'lib', 'binding.js'))
  copyFileSync(join(repo, 'lib', 'platform.js'), join(root, 'lib', 'platform.js'))
  copyFileSync(join(repo, 'package.json'), join(root, 'package.json'))
  return () => rmSync(root, { recursive: true, force: true })
})

/** Requires the scratch root's loader in a fresh node; `preload` runs first. */
function load(preload = ''): Outcome {
  const script = `${preload}
try {
  const binding = require(${JSON.stringify(join(root, 'lib', 'binding.js'))})
  console.log(JSON.stringify({ loaded: Object.keys(binding) }))
} catch (err) {
  const { code, message, platform, arch, libc, packageName, attempts } = err
  console.log(JSON.stringify({ code, message, platform, arch, libc, packageName, attempts, cause: err.cause && err.cause.message }))
}`
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout) as Outcome
}

/** Installs a fake platform package into the scratch root's node_modules. */
function fakePackage(pkgVersion: string, addon: (file: string) => void) {
  const dir = join(root, 'node_modules', `ptypilot-${key}`)
  mkdirSync(dir, { recursive: true })
  const main = `ptypilot.${key}.node`
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `ptypilot-${key}`, version: pkgVersion, main }))
  addon(join(dir, main))
}

describe.skipIf(!onLinuxGnu)('binding loader', () => {
  it('names the platform, the package, each attempt and the fix when nothing is installed', () => {
    const out = load()
    expect(out.code).toBe('ERR_NO_BINDING')
    expect(out).toMatchObject({ platform: 'linux', arch: process.arch, libc: 'glibc', packageName: `ptypilot-${key}` })
    expect(out.attempts!.map((a) => [a.what, a.status])).toEqual([
      [`local build ptypilot.${key}.node`, 'not found'],
      [`package ptypilot-${key}`, 'not found'],
    ])
    const message = out.message!
    expect(message).toContain(`for linux ${process.arch} (glibc ${glibc})`)
    expect(message).toContain(`npm install ptypilot-${key}@${version}`)
    expect(message).toContain('npm run build')
    expect(message).not.toMatch(/bug/i)
    console.log(`the loader's message when no binding is installed:\n${message}`)
  })

  it('says why a file that is there failed to load', () => {
    writeFileSync(join(root, `ptypilot.${key}.node`), 'not an ELF file')
    fakePackage(version, (file) => writeFileSync(file, 'not an ELF file either'))
    const out = load()
    expect(out.code).toBe('ERR_NO_BINDING')
    expect(out.attempts!.map((a) => a.status)).toEqual(['failed', 'failed'])
    for (const attempt of out.attempts!) {
      expect(attempt.location).toContain(root)
      expect(attempt.detail).toMatch(/invalid ELF header|file too short/)
    }
    expect(out.message).toMatch(new RegExp(`local build ptypilot\\.${key}\\.node: failed to load at .*: .*(invalid ELF header|file too short)`))
    expect(out.cause).toMatch(/invalid ELF header|file too short/)
  })

  it('explains a binary that needs a newer glibc', (ctx) => {
    if (!have('cc')) ctx.skip('cc not installed')
    if (!ccForThisArch) ctx.skip(`cc builds for another architecture than this process's ${process.arch}`)
    // A shared object that needs symbol version GLIBC_2.99 of libc.so.6: it
    // links against a stub libc that defines one, and at load time meets the
    // real libc, which does not.
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-glibc-'))
    try {
      writeFileSync(join(dir, 'stub.c'), 'void ptypilot_future(void) {}\n')
      writeFileSync(join(dir, 'stub.map'), 'GLIBC_2.99 { global: ptypilot_future; };\n')
      writeFileSync(join(dir, 'addon.c'), 'extern void ptypilot_future(void);\nvoid f(void) { ptypilot_future(); }\n')
      const cc = (args: string[]) => {
        const r = spawnSync('cc', args, { cwd: dir, encoding: 'utf8' })
        expect(r.stderr + (r.status === 0 ? '' : `exit ${r.status}`)).toBe('')
      }
      cc(['-shared', '-fPIC', '-o', 'libc.so.6', 'stub.c', '-Wl,-soname,libc.so.6', '-Wl,--version-script,stub.map'])
      cc(['-shared', '-fPIC', '-o', 'addon.node', 'addon.c', join(dir, 'libc.so.6')])
      copyFileSync(join(dir, 'addon.node'), join(root, `ptypilot.${key}.node`))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const out = load()
    expect(out.code).toBe('ERR_NO_BINDING')
    expect(out.attempts![0]).toMatchObject({ status: 'failed' })
    expect(out.attempts![0].detail).toContain("version `GLIBC_2.99' not found")
    expect(out.attempts![1]).toMatchObject({ status: 'not found' })
    expect(out.message).toContain(`This binary needs glibc 2.99 or newer; this system has ${glibc}.`)
  })

  it('refuses a platform package of another version', () => {
    fakePackage('0.0.1-other', (file) => symlinkSync(builtAddon, file))
    const out = load()
    expect(out.code).toBe('ERR_NO_BINDING')
    expect(out.attempts![1]).toMatchObject({ status: 'failed' })
    expect(out.attempts![1].detail).toBe(`version 0.0.1-other is installed, but ptypilot ${version} needs the same version`)
  })

  it('loads the addon from the platform package, or from a local build first', () => {
    fakePackage(version, (file) => symlinkSync(builtAddon, file))
    expect(load().loaded).toContain('NativeSession')
    // A broken package does not matter when the local build loads.
    rmSync(join(root, 'node_modules'), { recursive: true })
    fakePackage(version, (file) => writeFileSync(file, 'broken'))
    symlinkSync(builtAddon, join(root, `ptypilot.${key}.node`))
    expect(load().loaded).toContain('NativeSession')
  })

  it('says no package exists for an unsupported platform and how to build one', () => {
    const out = load(`Object.defineProperty(process, 'platform', { value: 'freebsd' })`)
    expect(out).toMatchObject({ code: 'ERR_NO_BINDING', platform: 'freebsd', libc: null, packageName: `ptypilot-freebsd-${process.arch}` })
    expect(out.message).toContain(`could not load its native addon for freebsd ${process.arch}.`)
    expect(out.message).toContain(
      `No prebuilt package exists for freebsd-${process.arch}; published platforms: linux-x64-gnu, linux-arm64-gnu, darwin-x64, darwin-arm64.`,
    )
    expect(out.message).toContain(`writes ptypilot.freebsd-${process.arch}.node`)
  })
})
