// The API reference builds wherever the source is: `npm run docs` (TypeDoc,
// typedoc.config.cjs, warnings are errors) in a checkout with no git remote,
// in a clone whose remote is a plain path, and in a copy with no git at all
// (a release tarball). Each is made in a temporary folder from this
// checkout's files (those git tracks and those it does not ignore, as they
// are in the working tree), with its node_modules linked in. With a GitHub remote the config links the sources
// at HEAD's commit.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const typedoc = join(repo, 'node_modules', 'typedoc', 'bin', 'typedoc')

function git(cwd: string, ...args: string[]): string {
  const identity = ['-c', 'user.name=docs test', '-c', 'user.email=docs@example.invalid', '-c', 'init.defaultBranch=main']
  return execFileSync('git', [...identity, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

/** `npm run docs` in `dir`, into `dir/api`: its exit code and everything it printed. */
async function buildDocs(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [typedoc, '--out', join(dir, 'api')], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    return { code: 0, output: stdout + stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` }
  }
}

describe('npm run docs without a hosted remote', () => {
  let root: string
  /** A checkout with commits and no remote. */
  let noRemote: string
  /** A clone of it: its origin is a plain path. */
  let pathRemote: string
  /** The files alone, no git (a release tarball). */
  let noGit: string

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ptypilot-docs-'))
    noRemote = join(root, 'no-remote')
    pathRemote = join(root, 'path-remote')
    noGit = join(root, 'no-git')
    const files = git(repo, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter((f) => f !== '' && f !== 'node_modules' && existsSync(join(repo, f)))
    for (const dir of [noRemote, noGit]) {
      for (const file of files) {
        mkdirSync(dirname(join(dir, file)), { recursive: true })
        try {
          cpSync(join(repo, file), join(dir, file))
        } catch (err) {
          // A file another test wrote and removed meanwhile.
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
      }
    }
    git(noRemote, 'init', '-q')
    git(noRemote, 'add', '-A')
    git(noRemote, 'commit', '-q', '-m', 'the tracked files')
    git(root, 'clone', '-q', noRemote, pathRemote)
    for (const dir of [noRemote, pathRemote, noGit]) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir')
  })

  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  })

  it('builds with exit code 0 and no warning: no remote, a plain-path remote, no git', async () => {
    expect(() => git(noRemote, 'remote', 'get-url', 'origin')).toThrow()
    expect(git(pathRemote, 'remote', 'get-url', 'origin')).toBe(noRemote)
    const results = await Promise.all([noRemote, pathRemote, noGit].map(buildDocs))
    for (const [i, { code, output }] of results.entries()) {
      const where = ['no remote', 'plain-path remote', 'no git'][i]
      expect({ where, code, warnings: output.split('\n').filter((l) => /warning|error/i.test(l)) }).toEqual({ where, code: 0, warnings: [] })
      expect(output).toContain('html generated')
    }
    for (const dir of [noRemote, pathRemote, noGit]) {
      const page = readFileSync(join(dir, 'api', 'functions', 'ptypilot.terminalTools.html'), 'utf8')
      expect(page).toContain('terminalTools')
      // No source link to a host that is not there.
      expect(page).not.toMatch(/href="https?:\/\/[^"]*\/(blob|src)\//)
    }
  }, 180_000)

  it('links the sources at the commit when the remote is on GitHub', () => {
    git(pathRemote, 'remote', 'set-url', 'origin', 'git@github.com:example/ptypilot.git')
    const config = JSON.parse(
      execFileSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(join(pathRemote, 'typedoc.config.cjs'))}))`], { encoding: 'utf8' }),
    )
    const head = git(pathRemote, 'rev-parse', 'HEAD')
    expect(config.sourceLinkTemplate).toBe('https://github.com/example/ptypilot/blob/{gitRevision}/{path}#L{line}')
    expect(config.gitRevision).toBe(head)
    expect(config.disableSources).toBeUndefined()
  })
})
