// Every refusal is told: the "the sandbox refused: …" line a tool reply carries for the refusals
// a program's own error does not name (a socket refused with the network off, an abstract
// socket, a relative path written from a folder outside the workspace, a Unix socket outside),
// and beside the errors that hide the cause (npm's `sudo chown` advice, pip's "the cache has
// been disabled", Cargo's "Caused by"). Real programs through the terminal tools, each checked
// with the sandbox off too (nothing refused, no line), and the text rules on the programs' own
// words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:net'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ToolRegistry, gitTool, sandboxRefusals, terminalTools, type SandboxInfo, type SandboxOption } from '../index.js'

const ROOT = join(__dirname, '..')
// Not under /tmp, whose sandboxed view is the program's own.
mkdirSync(join(ROOT, 'target'), { recursive: true })
const base = mkdtempSync(join(ROOT, 'target', 'sandbox-refusals-'))
const ws = join(base, 'ws')
const outside = join(base, 'outside')
const abstractName = `ptypilot-refusals-test-${process.pid}`
const socketPath = join(outside, 'daemon.sock')
/** Python itself rather than a version manager's shell shim (which is slow to start under load). */
const PY = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
let abstractDaemon: Server
let daemon: Server

/** A pty_exec of `python3 -c code` (or `sh -c script`) in a registry with `sandbox`; the reply's text. */
async function reply(sandbox: SandboxOption, fields: Record<string, unknown>): Promise<string> {
  const registry = new ToolRegistry()
  registry.register(terminalTools({ cwd: ws, sandbox }))
  try {
    return (await registry.respond('pty_exec', { timeout_ms: 20_000, ...fields })).text
  } finally {
    await registry.abortAll()
  }
}

beforeAll(async () => {
  mkdirSync(ws, { recursive: true })
  mkdirSync(outside, { recursive: true })
  // The supervisor connects to an abstract server outside before it can tell who made it, and
  // then shuts the connection: the server's answer may meet a closed socket (EPIPE).
  const answer = (text: string) => (c: import('node:net').Socket) => c.on('error', () => {}).end(text)
  abstractDaemon = createServer(answer('abstract-answered\n')).listen(`\0${abstractName}`)
  daemon = createServer(answer('daemon-answered\n')).listen(socketPath)
  await Promise.all([abstractDaemon, daemon].map((s) => new Promise((r) => (s.listening ? r(null) : s.once('listening', r)))))
})

afterAll(() => {
  abstractDaemon?.close()
  daemon?.close()
  rmSync(base, { recursive: true, force: true })
})

describe('a refusal the program does not name gets a line', () => {
  it('a socket refused with the network off (EPERM from a Python traceback)', async () => {
    const code = 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("made a socket")'
    const refused = await reply({ mode: 'workspace-write', network: false }, { command: PY, args: ['-c', code] })
    expect(refused).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/)
    expect(refused).toContain('the sandbox refused: a network connection (the network is off)')
    const open = await reply('off', { command: PY, args: ['-c', code] })
    expect(open).toContain('made a socket')
    expect(open).not.toContain('the sandbox refused')
  })

  it('a connection to an abstract Unix socket made outside', async () => {
    const code = `require('net').connect('\\0${abstractName}').on('data', (d) => console.log(String(d)))`
    const refused = await reply('workspace-write', { command: 'node', args: ['-e', code] })
    expect(refused).toMatch(/connect EPERM/)
    // Told by the sandbox's supervisor, which made the connection and found its server outside
    // (not again from the program's text).
    expect(refused).toContain(`the sandbox refused: a connection to the abstract Unix socket @${abstractName} (made outside the sandbox)`)
    expect(refused).not.toContain('connect an abstract Unix socket made outside the sandbox')
    expect(refused).not.toMatch(/the sandbox refused: write/)
    const open = await reply('off', { command: 'node', args: ['-e', code] })
    expect(open).toContain('abstract-answered')
    expect(open).not.toContain('the sandbox refused')
  })

  it('a write to a relative path from a folder outside the workspace', async () => {
    // Node names the path bare and quoted; the shell wrote after a `cd`.
    const node = await reply('workspace-write', { command: 'node', args: ['-e', 'require("fs").writeFileSync("notes.txt", "x")'], cwd: outside })
    expect(node).toMatch(/EACCES|EROFS/)
    expect(node).toContain(`the sandbox refused: write ${join(outside, 'notes.txt')} (outside the workspace)`)
    const sh = await reply('workspace-write', { command: 'sh', args: ['-c', `cd ${outside} && echo x > notes.txt`] })
    expect(sh).toMatch(/notes\.txt: (Permission denied|Read-only file system)/)
    expect(sh).toContain(`the sandbox refused: write notes.txt (relative to a folder outside the workspace: the program may write only in ${ws})`)
    expect(existsSync(join(outside, 'notes.txt'))).toBe(false)
    const open = await reply('off', { command: 'sh', args: ['-c', `cd ${outside} && echo x > notes.txt && echo wrote`] })
    expect(open).toContain('wrote')
    expect(open).not.toContain('the sandbox refused')
    rmSync(join(outside, 'notes.txt'))
  })

  it('a Unix socket outside the workspace that the sandbox covers', async () => {
    const code = `require('net').connect(${JSON.stringify(socketPath)}).on('data', (d) => console.log(String(d)))`
    const refused = await reply({ mode: 'workspace-write', denyUnixSockets: [socketPath] }, { command: 'node', args: ['-e', code] })
    expect(refused).not.toContain('daemon-answered')
    expect(refused).toContain(`the sandbox refused: connect ${socketPath} (a Unix socket outside the sandbox)`)
    const open = await reply('off', { command: 'node', args: ['-e', code] })
    expect(open).toContain('daemon-answered')
    expect(open).not.toContain('the sandbox refused')
  })
})

describe('refusals in writes that lead out, and in the git tool', () => {
  it('a hard link across the workspace\'s edge (EXDEV) and a write through a symlink that leads out', async () => {
    writeFileSync(join(outside, 'target.txt'), 'outside\n')
    symlinkSync(join(outside, 'target.txt'), join(ws, 'leads-out'))
    try {
      const script = `ln ${join(outside, 'target.txt')} hard-link.txt; echo changed > leads-out`
      const refused = await reply('workspace-write', { command: 'sh', args: ['-c', script] })
      expect(refused).toMatch(/Invalid cross-device link/)
      expect(refused).toContain(`the sandbox refused: link ${join(ws, 'hard-link.txt')} -> ${join(outside, 'target.txt')} (across the workspace's edge: ${join(outside, 'target.txt')} is outside it, and the sandbox mounts each writable folder on its own)`)
      expect(refused).toContain(`the sandbox refused: write ${join(ws, 'leads-out')} (a symlink that leads out of the workspace, to ${join(outside, 'target.txt')})`)
      expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('outside\n')
      // With the sandbox off both work, and nothing is said.
      const open = await reply('off', { command: 'sh', args: ['-c', `${script} && echo done`] })
      expect(open).toContain('done')
      expect(open).not.toContain('the sandbox refused')
      expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('changed\n')
    } finally {
      rmSync(join(ws, 'leads-out'), { force: true })
      rmSync(join(ws, 'hard-link.txt'), { force: true })
    }
  })

  it('the git tool: a write into .git/config is named in its reply and its state', async () => {
    const repo = join(base, 'repo')
    mkdirSync(repo, { recursive: true })
    execFileSync('git', ['init', '-q', repo])
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'one'])
    const config = readFileSync(join(repo, '.git', 'config'), 'utf8')
    const spawn = { action: 'spawn', command: 'log', args: ['--output=.git/config', '--format=[core]%n  fsmonitor = touch planted'] }
    const tools = new ToolRegistry({ cwd: repo, sandbox: 'workspace-write' })
    tools.register(gitTool())
    try {
      const r = await tools.respond('git', spawn)
      expect(r.text).toMatch(/\.git\/config.*(Read-only file system|Device or resource busy)/s)
      expect(r.text).toContain(`the sandbox refused: write ${join(repo, '.git', 'config')} (config is read-only in the sandbox)`)
      expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(config)
      const state = await tools.call('git', { action: 'spawn', command: 'log', args: ['--output=.git/hooks/post-commit'] })
      expect(state.refusals).toEqual([`the sandbox refused: write ${join(repo, '.git', 'hooks', 'post-commit')} (hooks is read-only in the sandbox)`])
      expect(state).not.toHaveProperty('sandbox')
    } finally {
      await tools.abortAll()
    }
    // The sandbox off: the write happens (so the check above can fail), no line, no refusals.
    const open = new ToolRegistry({ cwd: repo })
    open.register(gitTool())
    try {
      const state = await open.call('git', { action: 'spawn', command: 'log', args: ['--output=.git/config', '--format=%s'] })
      expect(state).not.toHaveProperty('refusals')
      expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).not.toBe(config)
    } finally {
      await open.abortAll()
    }
  })
})

describe('errors that hide the cause get the line beside them', () => {
  const info: SandboxInfo = {
    mode: 'workspace-write',
    network: true,
    allowHosts: null,
    writable: ['/w', '/c/ptypilot/sandbox', '/t'],
    readOnly: ['/w/.git'],
    tempDir: '/t',
    missing: [],
    caches: 'none',
    cacheDir: null,
    summary: 'workspace-write, network on',
  }

  it("npm's EACCES and EROFS blocks, with its sudo chown advice", () => {
    const npm = [
      'npm error code EACCES',
      'npm error syscall mkdir',
      'npm error path /home/u/.npm/_cacache',
      'npm error errno EACCES',
      'npm error',
      'npm error Your cache folder contains root-owned files, due to a bug in',
      'npm error previous versions of npm which has since been addressed.',
      'npm error',
      'npm error To permanently fix this problem, please run:',
      'npm error   sudo chown -R 1000:1000 "/home/u/.npm"',
    ].join('\n')
    expect(sandboxRefusals(npm, info, { cwd: '/w' })).toEqual([
      'the sandbox refused: write /home/u/.npm/_cacache (outside the workspace; sudo or chown will not help)',
    ])
    const global = ['npm error code EROFS', 'npm error syscall mkdir', 'npm error path /usr/lib/node_modules/left-pad', 'npm error errno -30'].join('\n')
    expect(sandboxRefusals(global, info, { cwd: '/w' })).toEqual(['the sandbox refused: write /usr/lib/node_modules/left-pad (outside the workspace)'])
    // The same error on a path the sandbox lets it write is npm's own problem: no line.
    expect(sandboxRefusals(npm.replaceAll('/home/u/.npm', '/c/ptypilot/sandbox/npm'), info, { cwd: '/w' })).toEqual([])
  })

  it("pip's disabled cache and its EACCES, Cargo's Caused by, Go's module cache", () => {
    expect(
      sandboxRefusals(
        [
          "WARNING: The directory '/home/u/.cache/pip' or its parent directory is not owned or is not writable by the current user. The cache has been disabled. Check the permissions and owner of that directory. If executing pip with sudo, you should use sudo's -H flag.",
          "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file system: '/usr/lib/python3/dist-packages/six.py'",
        ].join('\n'),
        info,
        { cwd: '/w' },
      ),
    ).toEqual([
      'the sandbox refused: write /home/u/.cache/pip (outside the workspace; sudo or chown will not help)',
      'the sandbox refused: write /usr/lib/python3/dist-packages/six.py (outside the workspace; sudo or chown will not help)',
    ])
    expect(
      sandboxRefusals(['error: failed to open: /home/u/.cargo/registry/.package-cache', '', 'Caused by:', '  Read-only file system (os error 30)'].join('\n'), info, { cwd: '/w' }),
    ).toEqual(['the sandbox refused: write /home/u/.cargo/registry/.package-cache (outside the workspace)'])
    expect(sandboxRefusals('go: could not create module cache: mkdir /home/u/go: read-only file system', info, { cwd: '/w' })).toEqual([
      'the sandbox refused: write /home/u/go (outside the workspace)',
    ])
  })

  it('no line without a sandbox, or for errors the sandbox did not cause', () => {
    expect(sandboxRefusals('npm error code EACCES\nnpm error path /home/u/.npm', null)).toEqual([])
    expect(sandboxRefusals('ConnectionRefusedError: [Errno 111] Connection refused', info, { cwd: '/w' })).toEqual([])
    expect(sandboxRefusals('PermissionError: [Errno 1] Operation not permitted', info, { cwd: '/w' })).toEqual([])
  })
})
