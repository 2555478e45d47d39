// The package as users get it: both tarballs packed (scripts/pack-local.js,
// from the addon `npm test` built), installed with npm into a fresh project
// whose PATH has no cargo or rustc, then used from CommonJS, from an ES
// module, in a real session, and type-checked with TypeScript (strict;
// NodeNext and Bundler resolution; with and without the user's own
// @types/node). Also: what the tarballs hold, the glibc the binary needs, and
// that versions and entry points agree.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { packLocal, maxGlibc, hostKey, describePack } = require('../scripts/pack-local.js') as typeof import('../scripts/pack-local.js')
const { sync } = require('../scripts/version-sync.js') as typeof import('../scripts/version-sync.js')
const run = promisify(execFile)

const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
const key = hostKey()
const published = existsSync(join(repo, 'npm', key))

/** Rust's programs, as rustup, Debian's rustc-web and Homebrew install them. */
const RUST_PROGRAMS = /^(cargo|rustc|rustup|rustdoc|rustfmt|rust-[\w-]+|cargo-[\w-]+|clippy-driver)$/

/**
 * `path` as on a machine without Rust, and nothing else missing: each folder
 * that holds `cargo` or `rustc` is replaced by a folder in `scratch` with
 * links to its other programs. (Debian's rustc-web and Homebrew put Rust in
 * the same folder as node and npm, so dropping the folder would lose them.)
 */
function hideRust(path: string, scratch: string): string {
  return path
    .split(delimiter)
    .map((dir, i) => {
      if (dir === '' || (!existsSync(join(dir, 'cargo')) && !existsSync(join(dir, 'rustc')))) return dir
      const shadow = join(scratch, `path-${i}`)
      mkdirSync(shadow, { recursive: true })
      for (const name of readdirSync(dir)) {
        if (!RUST_PROGRAMS.test(name)) symlinkSync(join(dir, name), join(shadow, name))
      }
      return shadow
    })
    .join(delimiter)
}

/** Whether the build links with zig (scripts/build.js uses it when present). */
function zigAvailable(): boolean {
  const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0
  return ok('cargo', ['zigbuild', '--help']) && (ok('zig', ['version']) || ok('python3', ['-m', 'ziglang', 'version']))
}

describe('version sync', () => {
  it('root, platform packages, optionalDependencies and the lock file are in step', () => {
    expect(sync(repo, false)).toEqual([])
    const platforms = pkg.napi.targets.length
    expect(Object.values(pkg.optionalDependencies)).toEqual(Array(platforms).fill(pkg.version))
  })

  it('finds and fixes a platform package or optional dependency out of step', () => {
    const root = mkdtempSync(join(tmpdir(), 'ptypilot-version-'))
    try {
      cpSync(join(repo, 'npm'), join(root, 'npm'), { recursive: true })
      for (const file of ['Cargo.toml', 'Cargo.lock']) cpSync(join(repo, file), join(root, file))
      writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, version: '9.8.7' }))
      const changes = sync(root, false)
      expect(changes).toContain(`npm/${key}/package.json: version ${pkg.version} -> 9.8.7`)
      expect(changes).toContain(`Cargo.toml: version ${pkg.version} -> 9.8.7`)
      expect(changes).toContain(`Cargo.lock: version ${pkg.version} -> 9.8.7`)
      expect(changes.some((c: string) => c.startsWith('package.json: optionalDependencies'))).toBe(true)
      expect(sync(root, true)).toEqual(changes)
      expect(sync(root, false)).toEqual([])
      const fixed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
      expect(fixed.optionalDependencies[`ptypilot-${key}`]).toBe('9.8.7')
      expect(JSON.parse(readFileSync(join(root, 'npm', key, 'package.json'), 'utf8')).version).toBe('9.8.7')
      // Only the crate's own version changed: a dependency's stays.
      const toml = readFileSync(join(root, 'Cargo.toml'), 'utf8')
      expect(toml.replace('version = "9.8.7"', `version = "${pkg.version}"`)).toBe(readFileSync(join(repo, 'Cargo.toml'), 'utf8'))
      const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8')
      expect(lock).toContain('name = "ptypilot"\nversion = "9.8.7"')
      expect(lock.replace('name = "ptypilot"\nversion = "9.8.7"', `name = "ptypilot"\nversion = "${pkg.version}"`)).toBe(readFileSync(join(repo, 'Cargo.lock'), 'utf8'))
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('npm run build', () => {
  const build = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [join(repo, 'scripts', 'build.js'), '--print'], { env, encoding: 'utf8' })

  it.skipIf(!zigAvailable())('links with zig against glibc 2.28 when cargo-zigbuild and zig are installed', () => {
    const result = build(process.env)
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining(['--cross-compile', '--target', 'x86_64-unknown-linux-gnu.2.28']))
    expect(result.stderr).toContain('linking with zig against glibc 2.28')
  })

  it('falls back to plain cargo without them, and says how to get them', () => {
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !existsSync(join(dir, 'cargo-zigbuild')))
      .join(delimiter)
    const result = build({ ...process.env, PATH: path })
    const args = JSON.parse(result.stdout) as string[]
    expect(args).toEqual(expect.arrayContaining(['build', '--platform', '--release', '--no-js', '--dts', 'native.d.ts']))
    expect(args).not.toContain('--cross-compile')
    expect(result.stderr).toContain('`pip install cargo-zigbuild` for the glibc 2.28 build')
  })
})

/**
 * What the ES module `esm` and the CommonJS module `cjs` export (in a plain
 * node: Vitest loads modules its own way), and whether the names are the
 * same objects.
 */
function entryExports(esm: string, cjs: string): { esm: string[]; cjs: string[]; same: boolean } {
  const script = `import * as esm from '${esm}'
import { createRequire } from 'node:module'
const cjs = createRequire(import.meta.url)('${cjs}')
const names = Object.keys(esm).filter((k) => k !== 'default')
console.log(JSON.stringify({ esm: names.sort(), cjs: Object.keys(cjs).sort(),
  same: names.every((k) => esm[k] === cjs[k]) && esm.default === cjs }))`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8' })
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout)
}

describe('entry points', () => {
  it('the ES module entry exports exactly what the CommonJS entry exports, as the same objects', () => {
    const { esm, cjs, same } = entryExports('./index.mjs', './index.js')
    expect(esm, 'index.mjs must list every name index.js exports').toEqual(cjs)
    expect(same).toBe(true)
  })

  it('ptypilot/node-pty: the ES module exports exactly what the CommonJS module exports, as the same objects', () => {
    const { esm, cjs, same } = entryExports('ptypilot/node-pty', 'ptypilot/node-pty')
    expect(esm).toEqual(['createTerminal', 'fork', 'open', 'spawn'])
    expect(cjs).toEqual(esm)
    expect(same).toBe(true)
  })
})

describe.skipIf(!published)('installed from the packed tarballs', () => {
  let work = ''
  let packs: ReturnType<typeof packLocal>
  let project = ''
  const env: NodeJS.ProcessEnv = { ...process.env }

  const npm = (args: string[]) =>
    run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: project, env })
  const node = (args: string[]) => run(process.execPath, args, { cwd: project, env })

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ptypilot-package-'))
    env.PATH = hideRust(process.env.PATH ?? '', join(work, 'bin'))
    packs = packLocal({ out: join(work, 'dist'), build: false })
    project = join(work, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
    await npm(['install', packs.root.file, packs.platform.file])
  }, 120_000)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('the tarballs hold what users need and nothing else', () => {
    for (const p of [packs.root, packs.platform]) console.log(describePack(p))
    for (const file of packs.root.files) {
      expect(file).toMatch(/^(README\.md|LICENSE|package\.json|index\.(js|mjs|d\.ts|d\.mts)|bin\/ptypilot\.js|lib\/[\w./-]+\.(js|mjs|cjs|d\.ts|d\.mts|json|html))$/)
      expect(file).not.toMatch(/(^|\/)(__test__|fixtures|test|tests)\/|\.test\.|\.node$/)
    }
    expect(packs.root.files).toEqual(expect.arrayContaining(['LICENSE', 'index.js', 'index.mjs', 'index.d.ts', 'lib/binding.js', 'bin/ptypilot.js', 'lib/mcp.js', 'lib/panel.js', 'lib/panel/index.html', 'lib/panel/app.js']))
    // index.d.ts re-exports the declarations beside each module: every one must ship.
    const declared = readdirSync(join(repo, 'lib')).filter((f) => f.endsWith('.d.ts')).map((f) => `lib/${f}`)
    expect(declared.length).toBeGreaterThan(10)
    expect(packs.root.files).toEqual(expect.arrayContaining(declared))
    expect(packs.platform.files.sort()).toEqual(['LICENSE', 'README.md', 'package.json', `ptypilot.${key}.node`])
  })

  it.skipIf(!key.startsWith('linux-'))('the binary needs glibc 2.28 or older', () => {
    const binary = join(project, 'node_modules', `ptypilot-${key}`, `ptypilot.${key}.node`)
    const glibc = maxGlibc(binary)
    console.log(`highest glibc symbol version ptypilot.${key}.node needs: GLIBC_${glibc}`)
    expect(glibc).toMatch(/^2\.\d+$/)
    // Without zig the build links against this machine's glibc (a local
    // convenience); CI installs zig, so there the floor is always checked.
    if (process.env.CI || zigAvailable()) {
      const hint = 'the addon must be linked by zig (`pip install cargo-zigbuild`, then `npm run build`)'
      expect(Number(glibc!.split('.')[1]), hint).toBeLessThanOrEqual(28)
    }
  })

  it('the project has no Rust toolchain on its PATH, and the rest of it', () => {
    expect(spawnSync('cargo', ['--version'], { env }).error).toMatchObject({ code: 'ENOENT' })
    expect(spawnSync('rustc', ['--version'], { env }).error).toMatchObject({ code: 'ENOENT' })
    expect(spawnSync('npm', ['--version'], { env, encoding: 'utf8' }).stdout.trim()).toMatch(/^\d+\.\d+/)
    expect(spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim()).toBe(process.version)
  })

  it('require() and import load the installed package and run a real session', async () => {
    writeFileSync(
      join(project, 'cjs.js'),
      `const ptypilot = require('ptypilot')
console.log(JSON.stringify({ resolved: require.resolve('ptypilot'), names: Object.keys(ptypilot) }))`,
    )
    const cjs = JSON.parse((await node(['cjs.js'])).stdout)
    expect(cjs.resolved).toBe(join(project, 'node_modules', 'ptypilot', 'index.js'))
    expect(cjs.names).toEqual(expect.arrayContaining(['PtySession', 'ToolRegistry', 'exec', 'Shell', 'Process']))

    writeFileSync(
      join(project, 'esm.mjs'),
      `import { PtySession, ToolRegistry, gitTool } from 'ptypilot'
import ptypilot from 'ptypilot'
import { createRequire } from 'node:module'
const session = PtySession.spawn({ command: 'echo', args: ['hello from', 'the package'] })
const { screen } = await session.waitFor('hello from the package')
const exit = await session.exited
const registry = new ToolRegistry()
registry.register(gitTool())
const same = PtySession === ptypilot.PtySession && PtySession === createRequire(import.meta.url)('ptypilot').PtySession
console.log(JSON.stringify({ text: screen.text, exit, tools: registry.names(), same, url: import.meta.resolve('ptypilot') }))`,
    )
    const esm = JSON.parse((await node(['esm.mjs'])).stdout)
    expect(esm.text).toBe('hello from the package')
    expect(esm.exit).toMatchObject({ exitCode: 0, signal: null })
    expect(esm.tools).toEqual(['git'])
    expect(esm.same).toBe(true)
    expect(esm.url).toBe(`file://${join(project, 'node_modules', 'ptypilot', 'index.mjs')}`)
  })

  it('ptypilot/node-pty loads from CommonJS and from an ES module and runs a program', async () => {
    writeFileSync(
      join(project, 'node-pty.cjs'),
      `const { spawn } = require('ptypilot/node-pty')
const p = spawn('echo', ['from', 'cjs'])
let out = ''
p.onData((d) => (out += d))
p.onExit((e) => console.log(JSON.stringify({ out, e, resolved: require.resolve('ptypilot/node-pty') })))`,
    )
    const cjs = JSON.parse((await node(['node-pty.cjs'])).stdout)
    expect(cjs).toEqual({ out: 'from cjs\r\n', e: { exitCode: 0, signal: 0 }, resolved: join(project, 'node_modules', 'ptypilot', 'lib', 'node-pty.js') })
    writeFileSync(
      join(project, 'node-pty.mjs'),
      `import { spawn } from 'ptypilot/node-pty'
import nodePty from 'ptypilot/node-pty'
const p = spawn('echo', ['from', 'esm'])
let out = ''
p.onData((d) => (out += d))
p.onExit((e) => console.log(JSON.stringify({ out, e, same: nodePty.spawn === spawn, url: import.meta.resolve('ptypilot/node-pty') })))`,
    )
    const esm = JSON.parse((await node(['node-pty.mjs'])).stdout)
    expect(esm).toEqual({
      out: 'from esm\r\n',
      e: { exitCode: 0, signal: 0 },
      same: true,
      url: `file://${join(project, 'node_modules', 'ptypilot', 'lib', 'node-pty.mjs')}`,
    })
  })

  it('the installed `ptypilot mcp` command answers an MCP client over stdio', async () => {
    const bin = join(project, 'node_modules', '.bin', 'ptypilot')
    expect((await run(bin, ['mcp', '--version'], { cwd: project, env })).stdout.trim()).toBe(pkg.version)
    // initialize, then tools/list, as a client sends them (one JSON-RPC message per line).
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]
    const result = spawnSync(bin, ['mcp', '--no-terminal'], {
      cwd: project,
      env,
      input: messages.map((m) => JSON.stringify(m) + '\n').join(''),
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status, result.stderr).toBe(0)
    const replies = result.stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(replies[0].result.serverInfo.name).toBe('ptypilot')
    expect(replies[1].result.tools.map((t: { name: string }) => t.name)).toEqual(['git'])
  })

  it('type-checks in strict mode with NodeNext and Bundler resolution, with and without the user\'s @types/node', async () => {
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
    const source = (importLine: string) => `${importLine}
import type { PtyExit, PtypilotError, PtypilotErrorCode, ScreenSnapshot } from 'ptypilot'
export async function demo(signal: AbortSignal): Promise<number | null> {
  const session = PtySession.spawn({ command: 'echo', args: ['hi'], signal })
  const snapshot: ScreenSnapshot = session.screen()
  const exit: PtyExit = await session.exited
  const registry = new ToolRegistry()
  registry.register(gitTool())
  const code: PtypilotErrorCode = 'ERR_NO_BINDING'
  // @ts-expect-error: not an error code (this line fails if the types are missing or loose)
  const wrong: PtypilotErrorCode = 'ERR_SOMETHING_ELSE'
  const err = new Error() as PtypilotError
  void [snapshot.text.length, code, wrong, err.code, registry[Symbol.asyncDispose]]
  return exit.exitCode
}
export function viaNodePty(): IPty {
  const p: IPty = spawnPty('sh', ['-c', 'exit 0'], { name: 'xterm-256color', cols: 80, rows: 24, env: process.env })
  p.onExit(({ exitCode, signal }) => void [exitCode, signal])
  // @ts-expect-error: node-pty's spawn takes options, not a number (fails if the types are missing or loose)
  spawnPty('sh', [], 42)
  return p
}
`
    const named = `import { PtySession, ToolRegistry, gitTool } from 'ptypilot'\nimport { spawn as spawnPty, type IPty } from 'ptypilot/node-pty'`
    writeFileSync(join(project, 'esm.mts'), source(`${named}\nimport ptypilot from 'ptypilot'\nvoid ptypilot.PtySession`))
    writeFileSync(join(project, 'cjs.cts'), source(named))
    writeFileSync(join(project, 'bundled.ts'), source(named))
    const config = (name: string, options: object, files: string[]) =>
      writeFileSync(
        join(project, name),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022'], ...options }, files }),
      )
    // "bare": "types": [] loads none of the project's own @types, as in a
    // project that never installed @types/node; only ptypilot's own reference
    // brings Node's types in. The NodeNext one also checks the declaration
    // files themselves (skipLibCheck: false; both index.d.ts and index.d.mts).
    // "user": the user's own @types/node, with the usual skipLibCheck.
    const nodenext = { module: 'NodeNext', moduleResolution: 'NodeNext' }
    const bundler = { module: 'ESNext', moduleResolution: 'Bundler' }
    config('tsconfig.nodenext.bare.json', { ...nodenext, types: [], skipLibCheck: false }, ['esm.mts', 'cjs.cts'])
    config('tsconfig.bundler.bare.json', { ...bundler, types: [], skipLibCheck: true }, ['bundled.ts'])
    config('tsconfig.nodenext.user.json', { ...nodenext, skipLibCheck: true }, ['esm.mts', 'cjs.cts'])
    config('tsconfig.bundler.user.json', { ...bundler, skipLibCheck: true }, ['bundled.ts'])
    const check = (suffix: string) =>
      Promise.all(
        ['nodenext', 'bundler'].map((mode) =>
          run(process.execPath, [tsc, '-p', `tsconfig.${mode}.${suffix}.json`], { cwd: project, env }).catch((err) => {
            throw new Error(`tsc ${mode} (${suffix}) failed:\n${err.stdout}${err.stderr}`)
          }),
        ),
      )
    expect(existsSync(join(project, 'node_modules', '@types', 'node'))).toBe(true) // ptypilot's dependency
    await check('bare')
    // The user installs @types/node themselves (the version this repository uses, from npm's cache).
    const userTypes = require('@types/node/package.json').version as string
    await npm(['install', '--save-dev', `@types/node@${userTypes}`])
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', '@types', 'node', 'package.json'), 'utf8'))
    expect(installed.version).toBe(userTypes)
    expect(existsSync(join(project, 'node_modules', 'ptypilot', 'node_modules'))).toBe(false) // one copy, shared
    await check('user')
  }, 120_000)
})
