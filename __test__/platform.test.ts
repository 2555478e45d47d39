// Which native package the loader picks for each OS, CPU and C library
// (lib/platform.js): checked on any machine, against the npm/ packages'
// own os/cpu/libc fields, so a Mac or an arm64 Linux user gets the package
// npm installs for them.
import { describe, it, expect } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { SUPPORTED, choosePackage, detectLibc } = require('../lib/platform.js') as typeof import('../lib/platform.js')
const { PLATFORMS } = require('../scripts/platforms.js') as typeof import('../scripts/platforms.js')
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))

type Manifest = { name: string; main: string; files: string[]; os: string[]; cpu: string[]; libc?: string[]; unlisted?: string }
const all: Manifest[] = readdirSync(join(repo, 'npm')).map((dir) => JSON.parse(readFileSync(join(repo, 'npm', dir, 'package.json'), 'utf8')))
/** The published packages; an `unlisted` one (built and checked, never run on its platform) is not handed to users. */
const manifests = all.filter((m) => !m.unlisted)

describe('the loader picks the platform package', () => {
  it.each([
    ['linux', 'x64', 'glibc', 'ptypilot-linux-x64-gnu', 'ptypilot.linux-x64-gnu.node'],
    ['linux', 'arm64', 'glibc', 'ptypilot-linux-arm64-gnu', 'ptypilot.linux-arm64-gnu.node'],
    ['darwin', 'x64', null, 'ptypilot-darwin-x64', 'ptypilot.darwin-x64.node'],
    ['darwin', 'arm64', null, 'ptypilot-darwin-arm64', 'ptypilot.darwin-arm64.node'],
  ] as const)('%s %s %s -> %s', (platform, arch, libc, packageName, file) => {
    expect(choosePackage({ platform, arch, libc })).toEqual({ key: packageName.slice('ptypilot-'.length), packageName, file, published: true })
  })

  it.each([
    ['linux', 'x64', 'musl', 'ptypilot-linux-x64-musl'],
    ['linux', 'arm64', 'musl', 'ptypilot-linux-arm64-musl'],
    ['linux', 'arm', 'glibc', 'ptypilot-linux-arm-gnu'],
    ['freebsd', 'x64', null, 'ptypilot-freebsd-x64'],
  ] as const)('%s %s %s has no package (%s): the loader says so', (platform, arch, libc, packageName) => {
    expect(choosePackage({ platform, arch, libc })).toMatchObject({ packageName, published: false })
  })

  it('every published key has an npm/ package whose os, cpu and libc lead back to it', () => {
    expect(manifests.map((m) => m.name.slice('ptypilot-'.length)).sort()).toEqual([...SUPPORTED].sort())
    for (const m of manifests) {
      expect(m.os).toHaveLength(1)
      expect(m.cpu).toHaveLength(1)
      const libc = m.os[0] === 'linux' ? ((m.libc?.[0] ?? 'glibc') as 'glibc' | 'musl') : null
      const chosen = choosePackage({ platform: m.os[0], arch: m.cpu[0], libc }, pkg.name)
      expect(chosen.packageName).toBe(m.name)
      expect(m.main).toBe(chosen.file)
      expect(m.files).toEqual([chosen.file])
    }
  })

  it('win32 x64 picks the unlisted GNU package, which npm does not install', () => {
    const win = all.find((m) => m.unlisted)!
    expect(win.name).toBe('ptypilot-win32-x64-gnu')
    const chosen = choosePackage({ platform: win.os[0], arch: win.cpu[0], libc: null }, pkg.name)
    expect(chosen).toEqual({ key: 'win32-x64-gnu', packageName: win.name, file: 'ptypilot.win32-x64-gnu.node', published: false })
    expect(win.main).toBe(chosen.file)
    expect(win.files).toEqual([chosen.file])
    expect(Object.keys(pkg.optionalDependencies)).not.toContain(win.name)
  })

  it('the root package depends on each platform package, and the build table builds each one', () => {
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual(SUPPORTED.map((k: string) => `ptypilot-${k}`).sort())
    const listed = PLATFORMS.filter((p) => !p.unlisted)
    expect(listed.map((p) => p.key).sort()).toEqual([...SUPPORTED].sort())
    for (const p of listed) {
      const m = manifests.find((x) => x.name === `ptypilot-${p.key}`)!
      expect([m.os[0], m.cpu[0], m.libc?.[0]]).toEqual([p.os, p.cpu, p.libc])
    }
  })

  it.runIf(process.platform === 'linux')("names this machine's C library on Linux", () => {
    const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } }
    expect(detectLibc()).toBe(report.header.glibcVersionRuntime ? 'glibc' : 'musl')
  })
})
