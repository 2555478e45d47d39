// Every platform's built addon, checked without running it
// (scripts/check-binary.js): format and architecture, the N-API export, the
// libraries and symbols it needs, the glibc floor on Linux, and on macOS the
// minimum OS version, install name, stripping and code signature. Then each
// platform package packed with `npm pack` and installed into an empty project
// with npm's --os/--cpu for that platform: the right binary lands.
//
// The Linux arm64 and macOS binaries come from `npm run build:all` (the cross
// toolchain of scripts/setup-cross.sh); where they were not built, their tests
// skip and say so. The Linux x64 one is `npm run build`'s.
import { describe, it, expect } from 'vitest'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { PLATFORMS, platform } = require('../scripts/platforms.js') as typeof import('../scripts/platforms.js')
const { inspect, problems, checkSignature, toolsAvailable } = require('../scripts/check-binary.js') as typeof import('../scripts/check-binary.js')
const { packPlatform } = require('../scripts/pack-local.js') as typeof import('../scripts/pack-local.js')

type Platform = (typeof PLATFORMS)[number]

/** Whether the build links with zig (scripts/build.js uses it when present). */
function zigAvailable(): boolean {
  const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0
  return ok('cargo', ['zigbuild', '--help']) && (ok('zig', ['version']) || ok('python3', ['-m', 'ziglang', 'version']))
}

/**
 * The binary to check for `p`, or why there is none: npm/<key>/ from
 * `npm run build:all`; for Linux x64 also `npm run build`'s, when zig linked
 * it (without zig it links against this machine's glibc, a local convenience).
 */
function binaryOf(p: Platform): { file?: string; missing?: string } {
  const packaged = join(repo, 'npm', p.key, `ptypilot.${p.key}.node`)
  if (existsSync(packaged)) return { file: packaged }
  const local = join(repo, `ptypilot.${p.key}.node`)
  if (p.toolchain === 'rustup' && existsSync(local)) {
    return process.env.CI || zigAvailable() ? { file: local } : { missing: 'npm run build linked it without zig (pip install cargo-zigbuild)' }
  }
  return {
    missing: toolchain
      ? `not built here: \`npm run build:all\` builds it (outside CI, whose time it does not fit)`
      : 'the cross toolchain is absent (scripts/setup-cross.sh installs it on Debian 12)',
  }
}

/** Whether scripts/setup-cross.sh finds the cross toolchain complete. */
const toolchain = spawnSync(join(repo, 'scripts', 'setup-cross.sh'), ['--check'], { stdio: 'ignore' }).status === 0

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

describe.skipIf(!toolsAvailable())('built binaries', () => {
  describe.each(PLATFORMS)('$key', (p) => {
    const { file, missing } = binaryOf(p)

    const kind = p.format === 'elf' ? 'an ELF' : p.format === 'pe' ? 'a PE32+' : 'a Mach-O'
    it(`is ${kind} ${p.machine} shared library that exports napi_register_module_v1 and needs only N-API and the C library`, (ctx) => {
      if (!file) return ctx.skip(missing)
      const facts = inspect(file, p)
      console.log(`${p.key}: ${JSON.stringify({ ...facts, optional: facts.optional.length })}`)
      expect([facts.format, facts.machine, facts.library]).toEqual([p.format, p.machine, true])
      expect(facts.exports).toContain('napi_register_module_v1')
      expect(facts.imports).toEqual([])
      expect(problems(facts, p)).toEqual([])
    })

    if (p.glibc) it(`needs glibc ${p.glibc} or older, and only glibc's libraries`, (ctx) => {
      if (!file) return ctx.skip(missing)
      const facts = inspect(file, p)
      expect(facts.glibc).toMatch(/^2\.\d+$/)
      expect(Number(facts.glibc!.split('.')[1])).toBeLessThanOrEqual(Number(p.glibc!.split('.')[1]))
      expect(facts.libraries).toContain('libc.so.6')
    })

    const signed = p.machine === 'arm64' ? 'validly signed (Apple silicon loads no unsigned code)' : 'unsigned or validly signed'
    if (p.macos) it(`runs on macOS ${p.macos}, has an install name that is no build path, is stripped, ${signed}`, (ctx) => {
      if (!file) return ctx.skip(missing)
      const facts = inspect(file, p)
      expect(facts.minos).toBe(p.macos)
      expect(facts.installName).toBe(`@rpath/ptypilot.${p.key}.node`)
      expect(facts.localSymbols).toBe(0)
      expect(facts.libraries).toContain('/usr/lib/libSystem.B.dylib')
      // zig signs arm64 dylibs (ad hoc, as ld64 does) and leaves x86_64 ones unsigned.
      if (p.machine === 'arm64') expect(facts.signature).toBe('valid')
      else expect(facts.signature).toMatch(/^(valid|none)$/)
    })

    it('npm pack of its package, installed with --os/--cpu for it into an empty project, puts this binary there', (ctx) => {
      if (!file) return ctx.skip(missing)
      const work = mkdtempSync(join(tmpdir(), 'ptypilot-platform-pack-'))
      try {
        const pack = packPlatform(p.key, file, join(work, 'dist'))
        expect(pack.files.sort()).toEqual(['LICENSE', 'README.md', 'package.json', `ptypilot.${p.key}.node`])
        const project = join(work, 'project')
        mkdirSync(project)
        writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
        const target = [`--os=${p.os}`, `--cpu=${p.cpu}`, ...(p.libc ? [`--libc=${p.libc}`] : [])]
        const npm = spawnSync('npm', ['install', '--force', ...target, '--no-audit', '--no-fund', '--offline', '--loglevel=error', pack.file], { cwd: project, encoding: 'utf8' })
        expect(npm.status, npm.stderr).toBe(0)
        const installed = join(project, 'node_modules', `ptypilot-${p.key}`)
        const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
        expect([manifest.os, manifest.cpu]).toEqual([[p.os], [p.cpu]])
        expect(sha256(join(installed, manifest.main))).toBe(sha256(file))
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    }, 120_000)
  })

  describe('the checks fail on a wrong binary', () => {
    const x64 = binaryOf(platform('linux-x64-gnu')).file
    const arm64 = binaryOf(platform('darwin-arm64')).file

    it('an x86-64 ELF file is not an arm64 Linux or a macOS binary', (ctx) => {
      if (!x64) return ctx.skip('no Linux x64 binary built')
      expect(problems(inspect(x64, platform('linux-x64-gnu')), platform('linux-arm64-gnu'))).toContain('architecture x86-64, expected aarch64')
      expect(() => inspect(x64, platform('darwin-x64'))).toThrow(/not a 64-bit little-endian Mach-O/)
      expect(problems(inspect(x64, platform('win32-x64-gnu')), platform('win32-x64-gnu'))).toContain('format unknown, expected pe')
    })

    it('a Mach-O file changed after signing fails the signature check', (ctx) => {
      if (!arm64) return ctx.skip(binaryOf(platform('darwin-arm64')).missing)
      const work = mkdtempSync(join(tmpdir(), 'ptypilot-signature-'))
      try {
        const copy = join(work, 'ptypilot.darwin-arm64.node')
        copyFileSync(arm64, copy)
        const buf = readFileSync(copy)
        buf[0x4000 + 17] ^= 0xff // a byte of the second page
        writeFileSync(copy, buf)
        const facts = inspect(copy, platform('darwin-arm64'))
        expect(facts.signature).toMatch(/^page \d+ does not match its hash/)
        expect(problems(facts, platform('darwin-arm64'))).toContain(`code signature: ${facts.signature}`)
        expect(checkSignature(buf, 0, 16)).toBe('no signature superblob at LC_CODE_SIGNATURE')
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    })
  })
})
