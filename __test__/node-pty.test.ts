// ptypilot/node-pty: node-pty's Unix API and semantics, against real
// programs — every option, member and behaviour the adapter promises, and
// the node-pty bugs it does not have, each as a test.
import { describe, it, expect, vi, beforeAll, afterAll } from 'vitest'
import { fstatSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync, spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as tty from 'node:tty'
import { spawn, open, fork, createTerminal, type IPty, type IUnixPty } from 'ptypilot/node-pty'
import { alive, exists, fdCount, linuxOnly } from './helpers'

const isRoot = process.getuid?.() === 0

/** Everything a pty delivers: the chunks as they came, and the exit. */
function watch(p: IPty) {
  const chunks: (string | Buffer)[] = []
  let resolveExit!: (e: { exitCode: number; signal?: number; chunksBefore: number }) => void
  const exit = new Promise<{ exitCode: number; signal?: number; chunksBefore: number }>((r) => (resolveExit = r))
  p.onData((d) => chunks.push(d))
  p.onExit((e) => resolveExit({ ...e, chunksBefore: chunks.length }))
  const text = () => chunks.map((c) => (typeof c === 'string' ? c : c.toString('latin1'))).join('')
  return { chunks, exit, text, until: (s: string) => vi.waitFor(() => expect(text()).toContain(s), { timeout: 10_000 }) }
}

/** Runs `script` in sh and returns what it printed and how it ended. */
async function sh(script: string, options: Parameters<typeof spawn>[2] = {}) {
  const p = spawn('sh', ['-c', script], options)
  const w = watch(p)
  const exit = await w.exit
  return { text: w.text(), exit, pty: p }
}

describe('spawn options', () => {
  it('defaults: sh when no file, 80x24, cwd and PWD from process.cwd(), TERM from the environment', async () => {
    const p = spawn(undefined, ['-c', 'echo "$0|$(stty size)|$PWD|$(pwd)|$TERM"'])
    const w = watch(p)
    await w.exit
    expect(w.text().trim()).toBe(`sh|24 80|${process.cwd()}|${realpathSync(process.cwd())}|${process.env.TERM ?? 'xterm'}`)
  })

  it('name sets TERM; without it env.TERM is kept; without both it is xterm', async () => {
    expect((await sh('echo $TERM', { name: 'screen-256color' })).text.trim()).toBe('screen-256color')
    expect((await sh('echo $TERM', { env: { TERM: 'vt100', PATH: process.env.PATH } })).text.trim()).toBe('vt100')
    expect((await sh('echo $TERM', { env: { PATH: process.env.PATH } })).text.trim()).toBe('xterm')
  })

  it('cols and rows set the size; 0 means the default, fractions are cut off', async () => {
    expect((await sh('stty size', { cols: 132, rows: 43 })).text.trim()).toBe('43 132')
    expect((await sh('stty size', { cols: 0, rows: 0 })).text.trim()).toBe('24 80')
    expect((await sh('stty size', { cols: 100.9, rows: 30.2 })).text.trim()).toBe('30 100')
    expect((await sh('stty size', { cols: 1, rows: 1 })).text.trim()).toBe('1 1')
    expect((await sh('stty size', { cols: 2000, rows: 700 })).text.trim()).toBe('700 2000')
  })

  it('cwd sets the directory and PWD', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-node-pty-'))
    try {
      expect((await sh('echo "$PWD|$(pwd -P)"', { cwd: dir })).text.trim()).toBe(`${dir}|${realpathSync(dir)}`)
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  it('env given: the program gets exactly it, plus PWD and TERM (nothing removed, nothing added)', async () => {
    const { text } = await sh('env | sort', {
      env: { ZED: 'last', TMUX: 'kept when given', PATH: '/usr/bin:/bin', EMPTY: '', GONE: undefined },
      cwd: '/',
    })
    expect(text.trim().split('\r\n')).toEqual(['EMPTY=', 'PATH=/usr/bin:/bin', 'PWD=/', 'TERM=xterm', 'TMUX=kept when given', 'ZED=last'])
  })

  it('env by default: process.env without the multiplexer variables node-pty removes', async () => {
    const names = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES']
    const saved = Object.fromEntries([...names, 'PTYPILOT_NODE_PTY_PROBE'].map((n) => [n, process.env[n]]))
    try {
      for (const n of names) process.env[n] = 'outer'
      process.env.PTYPILOT_NODE_PTY_PROBE = 'inherited'
      const { text } = await sh(`for v in ${names.join(' ')} PTYPILOT_NODE_PTY_PROBE; do eval "echo $v=\\\${$v-unset}"; done`)
      expect(text.trim().split('\r\n')).toEqual([...names.map((n) => `${n}=unset`), 'PTYPILOT_NODE_PTY_PROBE=inherited'])
    } finally {
      for (const [n, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[n]
        else process.env[n] = v
      }
    }
  })

  it("encoding: 'utf8' by default (strings, characters split across reads intact)", async () => {
    const p = spawn('python3', ['-c', "import os,time\nfor b in 'é€😀'.encode():\n  os.write(1, bytes([b])); time.sleep(0.002)"])
    const w = watch(p)
    await w.exit
    expect(w.chunks.every((c) => typeof c === 'string')).toBe(true)
    expect(w.text()).toBe('é€😀')
  })

  it('encoding: null gives Buffers with exactly the bytes read, invalid UTF-8 included', async () => {
    const p = spawn('sh', ['-c', "printf '\\303\\251\\377\\000x'"], { encoding: null })
    const w = watch(p)
    await w.exit
    expect(w.chunks.every((c) => Buffer.isBuffer(c))).toBe(true)
    expect(Buffer.concat(w.chunks as Buffer[]).toString('hex')).toBe('c3a9ff0078')
  })

  it('other Node encodings decode the output and encode what is written', async () => {
    const latin1 = spawn('sh', ['-c', "stty raw -echo; printf '\\351t\\351'; od -An -tx1 -N2"], { encoding: 'latin1' })
    const w = watch(latin1)
    await w.until('été')
    latin1.write('é!')
    await w.exit
    expect(w.text()).toContain('été')
    expect(w.text()).toContain('e9 21')
    const hex = await sh("printf 'AB'", { encoding: 'hex' })
    expect(hex.text).toBe('4142')
    const base64 = spawn('sh', ['-c', "printf 'ab'; sleep 0.05; printf 'c'"], { encoding: 'base64' })
    const b = watch(base64)
    await b.exit
    expect(Buffer.from(b.text(), 'base64').toString()).toBe('abc')
  })

  it('an unknown encoding and options of the wrong type throw ERR_INVALID_ARG, as node-pty checks them', () => {
    expect(() => spawn('sh', [], { encoding: 'klingon' })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    for (const bad of [{ cols: '80' }, { rows: '24' }, { name: 42 }, { cwd: 1 }, { env: 'A=1' }, { uid: '0' }, { gid: '0' }]) {
      expect(() => spawn('sh', [], bad as never), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    }
    expect(() => spawn('sh', [], { cols: -3 })).toThrow(/cols/)
  })

  it('args as a string throws on Unix, as node-pty does; Windows-only options are accepted and ignored', async () => {
    expect(() => spawn('sh', '-c "echo hi"')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(/not supported on unix/) }))
    const { text, exit } = await sh('echo windows options ignored', { useConpty: true, useConptyDll: true, conptyInheritCursor: true })
    expect(text).toBe('windows options ignored\r\n')
    expect(exit.exitCode).toBe(0)
  })

  it('the terminal modes are node-pty\'s: IUTF8 (for UTF-8), IXANY and IMAXBEL over the kernel defaults', async () => {
    const utf8 = (await sh('stty -a')).text
    expect(utf8).toMatch(/(^|\s)iutf8(\s|$)/m)
    expect(utf8).toMatch(/(^|\s)ixany(\s|$)/m)
    expect(utf8).toMatch(/(^|\s)imaxbel(\s|$)/m)
    expect(utf8).toMatch(/(^|\s)icanon(\s|$)/m)
    const bytes = (await sh('stty -a', { encoding: 'latin1' })).text
    expect(bytes).toMatch(/-iutf8/)
  })

  it.skipIf(!isRoot)('uid and gid run the program as that user and group; one of them alone changes nothing', async () => {
    expect((await sh('id -u; id -g; id -G', { uid: 65534, gid: 65534 })).text).toBe('65534\r\n65534\r\n65534\r\n')
    expect((await sh('id -u', { uid: 65534 })).text).toBe('0\r\n')
    expect((await sh('id -u', { uid: 65534, gid: -1 })).text).toBe('0\r\n')
  })

  it('handleFlowControl: the pause and resume messages pause and resume, and never reach the program', async () => {
    const p = spawn('python3', ['-c', 'import sys,tty,os\ntty.setraw(0)\nos.write(1, b"ready\\r\\n")\nwhile True:\n  b = os.read(0, 64)\n  os.write(1, b.hex().encode() + b"\\r\\n")\n  if b"q" in b: break'], {
      handleFlowControl: true,
    })
    const w = watch(p)
    await w.until('ready')
    p.write('a')
    await w.until('61\r\n')
    p.write('\x13')
    p.write('b')
    // Paused: the program answers, but nothing is delivered until resumed.
    await new Promise((r) => setTimeout(r, 300))
    expect(w.text()).not.toContain('62')
    p.write('\x11')
    await w.until('62\r\n')
    // Settable later: off, the same bytes go to the program.
    p.handleFlowControl = false
    p.write('\x13')
    await w.until('13\r\n')
    p.write('q')
    await w.exit
    expect(w.text()).toBe('ready\r\n61\r\n62\r\n13\r\n71\r\n')
  })

  it('custom flow control messages', async () => {
    const p = spawn('cat', [], { handleFlowControl: true, flowControlPause: 'PAUSE!', flowControlResume: 'GO!' })
    const w = watch(p)
    p.write('PAUSE!')
    p.write('one\r')
    await new Promise((r) => setTimeout(r, 200))
    expect(w.text()).toBe('')
    p.write('GO!')
    await w.until('one\r\none\r\n')
    p.kill()
    await w.exit
    expect(w.text()).not.toContain('PAUSE!')
  })
})

describe('IPty members', () => {
  it('pid is the program\'s; cols and rows follow resize, which the program sees', async () => {
    const p = spawn('bash', ['--norc', '--noprofile', '-c', 'echo pid=$$; trap "stty size" WINCH; read x; stty size'])
    const w = watch(p)
    await w.until('pid=')
    expect(w.text()).toContain(`pid=${p.pid}\r\n`)
    expect([p.cols, p.rows]).toEqual([80, 24])
    p.resize(100, 40)
    expect([p.cols, p.rows]).toEqual([100, 40])
    p.write('\r')
    await w.exit
    expect(w.text()).toContain('40 100')
  })

  it('resize rejects sizes that are not positive, as node-pty does', () => {
    const p = spawn('cat', [])
    for (const [c, r] of [[0, 10], [10, -1], [NaN, 5], [Infinity, 5]]) {
      expect(() => p.resize(c, r)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(/positive/) }))
    }
    p.kill('SIGKILL')
  })

  it('process names the foreground program and follows it; the file once the program has exited', async () => {
    const p = spawn('bash', ['--norc', '--noprofile'], { env: { PATH: process.env.PATH, PS1: '$ ' } })
    const w = watch(p)
    await w.until('$ ')
    expect(p.process).toBe('bash')
    p.write('exec -a my-sleeper sleep 30\r')
    await vi.waitFor(() => expect(p.process).toBe('my-sleeper'), { timeout: 10_000 })
    p.kill('SIGTERM')
    await w.exit
    expect(p.process).toBe('bash')
    // A job of an interactive shell is the foreground group while it runs.
    const shell = spawn('bash', ['--norc', '--noprofile', '-i'], { env: { PATH: process.env.PATH, PS1: '$ ' } })
    const ws = watch(shell)
    await ws.until('$ ')
    shell.write('sleep 30\r')
    await vi.waitFor(() => expect(shell.process).toBe('sleep'), { timeout: 10_000 })
    shell.write('\x03')
    await vi.waitFor(() => expect(shell.process).toBe('bash'), { timeout: 10_000 })
    shell.write('exit\r')
    await ws.exit
  })

  it('onData and onExit return disposables; a disposed listener hears nothing more', async () => {
    const p = spawn('sh', ['-c', 'echo one; read x; echo two'])
    const kept: string[] = []
    const dropped: string[] = []
    let exits = 0
    expect(p.onData).toBe(p.onData)
    p.onData((d) => kept.push(d))
    const d = p.onData((d) => dropped.push(d))
    const e = p.onExit(() => exits++)
    let exit: unknown
    p.onExit((x) => (exit = x))
    await vi.waitFor(() => expect(kept.join('')).toContain('one'))
    d.dispose()
    d.dispose()
    e.dispose()
    p.write('\r')
    await vi.waitFor(() => expect(exit).toEqual({ exitCode: 0, signal: 0 }))
    expect(kept.join('')).toContain('two')
    expect(dropped.join('')).not.toContain('two')
    expect(exits).toBe(0)
  })

  it("the legacy on/once/removeListener('data' | 'exit') API", async () => {
    const p = spawn('sh', ['-c', 'printf a; read x; printf b; exit 7']) as IUnixPty
    const all: string[] = []
    const first: string[] = []
    const removed: string[] = []
    const remove = (d: string) => removed.push(d)
    let exitArgs: unknown[] = []
    let closed = false
    p.on('data', (d) => all.push(d)).once('data', (d) => first.push(d)).on('data', remove)
    p.on('close', () => (closed = true))
    p.on('exit', (...args) => (exitArgs = args))
    await vi.waitFor(() => expect(all.join('')).toBe('a'))
    p.removeListener('data', remove)
    expect(p.listeners('data')).toHaveLength(1)
    p.write('\r')
    await vi.waitFor(() => expect(exitArgs).toEqual([7, 0]))
    expect(all.join('')).toContain('b')
    expect(first).toEqual(['a'])
    expect(removed).toEqual(['a'])
    expect(closed).toBe(true)
  })

  it('a listener that throws is reported as a warning; the other listeners and the exit still come', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const p = spawn('echo', ['hello'])
      p.onData(() => {
        throw new Error('listener bug')
      })
      const w = watch(p)
      expect(await w.exit).toMatchObject({ exitCode: 0 })
      expect(w.text()).toBe('hello\r\n')
      await vi.waitFor(() => expect(warnings.map((x) => x.message).join()).toMatch(/onData listener threw: Error: listener bug/))
      expect(warnings.find((x) => /listener bug/.test(x.message))).toMatchObject({ code: 'PTYPILOT_LISTENER_ERROR' })
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('write takes strings and Buffers', async () => {
    const p = spawn('sh', ['-c', 'stty -echo; echo ready; read a; read b; echo "[$a][$b]"'])
    const w = watch(p)
    await w.until('ready')
    p.write('text\r')
    p.write(Buffer.from('bytes\r'))
    await w.exit
    expect(w.text()).toBe('ready\r\n[text][bytes]\r\n')
    expect(() => p.write(42 as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
  })

  it('clear() does nothing on Unix', async () => {
    const p = spawn('sh', ['-c', 'stty -echo; echo before; read x; echo after'])
    const w = watch(p)
    await w.until('before')
    p.clear()
    p.write('\r')
    await w.exit
    expect(w.text()).toBe('before\r\nafter\r\n')
  })

  it("kill() sends SIGHUP by default, as node-pty; another signal by name; nothing after the exit; a bad name throws", async () => {
    const hup = spawn('sleep', ['30'])
    const wh = watch(hup)
    hup.kill()
    expect(await wh.exit).toMatchObject({ exitCode: 0, signal: 1 })
    hup.kill()
    hup.kill('SIGKILL')
    const term = spawn('sleep', ['30'])
    const wt = watch(term)
    expect(() => term.kill('SIGNOPE')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    term.kill('SIGTERM')
    expect(await wt.exit).toMatchObject({ exitCode: 0, signal: 15 })
    // Only the program, as node-pty: a child in another group survives.
    const parent = spawn('sh', ['-c', 'setsid sleep 30 & echo child=$!; wait'])
    const wp = watch(parent)
    await wp.until('child=')
    const child = Number(/child=(\d+)/.exec(wp.text())![1])
    parent.kill('SIGKILL')
    await wp.exit
    expect(alive(child)).toBe(true)
    process.kill(child, 'SIGKILL')
  })

  it('fd is a descriptor of the pty in this process, closed when the exit is delivered', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/self/fd')
    const p = spawn('sh', ['-c', 'read x']) as IUnixPty
    const w = watch(p)
    const fd = p.fd
    expect(fd).toBeGreaterThan(2)
    expect(p.fd).toBe(fd)
    expect(tty.isatty(fd)).toBe(true)
    expect(readlinkSync(`/proc/self/fd/${fd}`)).toMatch(/ptmx/)
    p.write('\r')
    await w.exit
    expect(p.fd).toBe(-1)
    expect(() => fstatSync(fd)).toThrow()
  })

  it('ptsName is the terminal the program has', async () => {
    const p = spawn('tty', []) as IUnixPty
    const w = watch(p)
    expect(p.ptsName).toMatch(/^\/dev\/pts\/\d+$/)
    await w.exit
    expect(w.text().trim()).toBe(p.ptsName)
  })

  it('ptsName is known for a program that ends at once, after its exit too', async (ctx) => {
    linuxOnly(ctx, 'a terminal with a device path')
    // The native session underneath: the path it read at the start, not one asked of a master
    // that the session closes once the program ended (under emulation the program may end
    // before the caller asks).
    const native = require('../lib/addon.js')
    const session = new native.NativeSession()
    const exited = new Promise<void>((resolve) => {
      session.startNodePty(
        { file: 'true', args: [], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd: '/', cols: 80, rows: 24, text: true, raw: false },
        (_data: unknown, exit: unknown) => { if (exit) resolve() },
      )
    })
    await exited
    expect(session.ptsName).toMatch(/^\/dev\/pts\/\d+$/)
  })

  it('destroy() stops the output, hangs up the program, and onExit still comes', async () => {
    const p = spawn('sh', ['-c', 'while :; do echo tick; sleep 0.01; done']) as IUnixPty
    const w = watch(p)
    await w.until('tick')
    p.destroy()
    const seen = w.chunks.length
    const exit = await w.exit
    expect(exit).toMatchObject({ exitCode: 0, signal: 1 })
    expect(w.chunks.length).toBe(seen)
  })

  it('destroy() of a program that ignores SIGHUP ends it and its children', async () => {
    const p = spawn('bash', ['-c', 'trap "" HUP TERM; sleep 60 & echo child=$!; while :; do sleep 0.05; done']) as IUnixPty
    const w = watch(p)
    await w.until('child=')
    const child = Number(/child=(\d+)/.exec(w.text())![1])
    p.destroy()
    const exit = await w.exit
    expect(exit.signal).toBe(9)
    expect(alive(child)).toBe(false)
  }, 20_000)

  it('fork and createTerminal are spawn, as node-pty\'s deprecated names', async () => {
    for (const start of [fork, createTerminal]) {
      const w = watch(start('echo', ['same']))
      await w.exit
      expect(w.text()).toBe('same\r\n')
    }
  })
})

describe('open(): a pty pair with no program', () => {
  it('gives master and slave streams that talk to each other, close-on-exec, sized', async (ctx) => {
    linuxOnly(ctx, 'reads /proc')
    const pair = open({ cols: 120, rows: 33 })
    try {
      expect(pair.pid).toBe(-1)
      expect(pair.ptsName).toMatch(/^\/dev\/pts\/\d+$/)
      expect(tty.isatty(pair.fd)).toBe(true)
      const size = () => execFileSync('sh', ['-c', `stty size < ${pair.ptsName}`], { encoding: 'utf8' }).trim()
      expect(size()).toBe('33 120')
      const fromMaster: string[] = []
      const fromSlave: string[] = []
      pair.master.on('data', (d: string) => fromMaster.push(d))
      pair.slave.on('data', (d: string) => fromSlave.push(d))
      pair.slave.write('to the master\n')
      await vi.waitFor(() => expect(fromMaster.join('')).toBe('to the master\r\n'))
      pair.write('to the slave\r')
      await vi.waitFor(() => expect(fromSlave.join('')).toBe('to the slave\n'))
      pair.resize(90, 20)
      expect(size()).toBe('20 90')
      expect([pair.cols, pair.rows]).toEqual([90, 20])
      const inChild = spawnSync('sh', ['-c', 'ls -l /proc/$$/fd'], { encoding: 'utf8' }).stdout
      expect(inChild).not.toMatch(/ptmx|\/dev\/pts\//)
    } finally {
      pair.destroy()
    }
  })

  it('takes node-pty\'s older open(options, cols, rows) and encoding null', async () => {
    const pair = open({}, 50, 10)
    try {
      expect([pair.cols, pair.rows]).toEqual([50, 10])
      const got: Buffer[] = []
      const raw = open({ encoding: null })
      raw.master.on('data', (d: Buffer) => got.push(d))
      raw.slave.write(Buffer.from([0xff, 0x41]))
      await vi.waitFor(() => expect(Buffer.concat(got).toString('hex')).toBe('ff41'))
      raw.destroy()
    } finally {
      pair.destroy()
    }
  })
})

describe('semantics', () => {
  it('onExit gives node-pty\'s numbers: the exit code and signal 0, or code 0 and the signal number', async () => {
    expect((await sh('exit 3')).exit).toMatchObject({ exitCode: 3, signal: 0 })
    expect((await sh('kill -KILL $$')).exit).toMatchObject({ exitCode: 0, signal: 9 })
    expect((await sh('kill -INT $$')).exit).toMatchObject({ exitCode: 0, signal: 2 })
  })

  it('a missing program or a bad cwd ends with exit code 1 and the reason on the terminal, not a throw', async () => {
    const missing = spawn('no-such-program-anywhere', ['x'])
    const wm = watch(missing)
    expect(missing.pid).toBeGreaterThan(0)
    expect(await wm.exit).toMatchObject({ exitCode: 1, signal: 0 })
    expect(wm.text()).toMatch(/no-such-program-anywhere: ENOENT/)
    const badCwd = spawn('sh', ['-c', 'echo never'], { cwd: '/no/such/dir' })
    const wc = watch(badCwd)
    expect(await wc.exit).toMatchObject({ exitCode: 1, signal: 0 })
    expect(wc.text()).toMatch(/\/no\/such\/dir: ENOENT/)
    expect(wc.text()).not.toContain('never')
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-node-pty-'))
    try {
      writeFileSync(join(dir, 'not-executable'), 'echo hi\n', { mode: 0o644 })
      const denied = watch(spawn(join(dir, 'not-executable'), []))
      expect(await denied.exit).toMatchObject({ exitCode: 1 })
      expect(denied.text()).toMatch(/EACCES/)
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  it('each data event is one read: a line the program writes at once arrives as one event', async () => {
    for (let i = 0; i < 20; i++) {
      const p = spawn('sh', ['-c', "stty -opost -echo; printf 'ready\\r\\n'; read x; printf 'next\\r\\n'"])
      const w = watch(p)
      await w.until('ready')
      p.write('\r')
      await w.exit
      expect(w.chunks).toEqual(['ready\r\n', 'next\r\n'])
    }
  })

  it('signal dispositions and the signal mask are reset in the program', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/status')
    // Node ignores SIGPIPE (and more): the program must not inherit that.
    const mine = /SigIgn:\s*([0-9a-f]+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]
    expect(BigInt('0x' + mine)).not.toBe(0n)
    const { text } = await sh('grep -E "^Sig(Ign|Blk)" /proc/self/status')
    expect(text).toBe('SigBlk:\t0000000000000000\r\nSigIgn:\t0000000000000000\r\n')
  })

  it('the program is reaped off the JS thread: it is gone while JS is still busy', async () => {
    const p = spawn('sh', ['-c', 'read x; exit 0'])
    const w = watch(p)
    p.write('\r')
    // Busy from here until the process is gone (or 10 s): only another thread can reap it.
    const until = Date.now() + 10_000
    while (exists(p.pid) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
    expect(exists(p.pid)).toBe(false)
    expect(await w.exit).toMatchObject({ exitCode: 0 })
  })

  it('the pty descriptors are close-on-exec: programs this process starts get none of them', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/fd')
    const p = spawn('sh', ['-c', 'read x']) as IUnixPty
    const w = watch(p)
    expect(tty.isatty(p.fd)).toBe(true)
    const listing = execFileSync('sh', ['-c', 'ls -l /proc/$$/fd'], { encoding: 'utf8' })
    expect(listing).not.toMatch(/ptmx|\/dev\/pts\//)
    // And the program itself has only its terminal.
    p.write('\r')
    await w.exit
    const own = await sh('ls /proc/self/fd | tr "\\n" " "')
    expect(own.text.trim()).toBe('0 1 2 3')
  })
})

describe('node-pty bugs that do not happen here', () => {
  let dir = ''
  let mib = ''
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ptypilot-node-pty-'))
    mib = join(dir, 'mib')
    writeFileSync(mib, 'x'.repeat(1 << 20))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('all output before onExit from a program that exits right after 1 MB (#72, #726): 200 runs', async () => {
    const short: number[] = []
    const run = async () => {
      const p = spawn('cat', [mib])
      let got = 0
      p.onData((d) => (got += d.length))
      const exit = await new Promise<{ exitCode: number }>((r) => p.onExit(r))
      expect(exit.exitCode).toBe(0)
      if (got !== 1 << 20) short.push(got)
    }
    for (let i = 0; i < 200; i += 4) await Promise.all([run(), run(), run(), run()])
    expect(short).toEqual([])
  }, 300_000)

  it('no descriptor growth after 1000 spawns (#657, #950)', async () => {
    const once = async () => {
      const p = spawn('true', []) as IUnixPty
      void p.fd
      await new Promise((r) => p.onExit(r))
    }
    for (let i = 0; i < 10; i++) await once()
    const before = fdCount()
    for (let i = 0; i < 1000; i += 8) await Promise.all(Array.from({ length: 8 }, once))
    expect(fdCount()).toBe(before)
  }, 300_000)

  it('pause() for 1 s during a flood loses nothing (#652)', async () => {
    const total = 20 << 20
    const p = spawn('sh', ['-c', `head -c ${total} /dev/zero | tr '\\0' y`])
    let got = 0
    let paused = false
    let resumed = false
    let duringPause = 0
    p.onData((d) => {
      got += d.length
      if (paused && !resumed) duringPause += d.length
      if (!paused) {
        paused = true
        p.pause()
        setTimeout(() => {
          resumed = true
          p.resume()
        }, 1000)
      }
    })
    const exit = await new Promise<{ exitCode: number }>((r) => p.onExit(r))
    expect(exit.exitCode).toBe(0)
    expect(resumed).toBe(true)
    expect(duringPause).toBe(0)
    expect(got).toBe(total)
  }, 60_000)

  it('resize after the exit is silent (#220, #827), and so is resize racing the exit', async () => {
    const p = spawn('true', [])
    await new Promise((r) => p.onExit(r))
    expect(() => p.resize(100, 30)).not.toThrow()
    expect([p.cols, p.rows]).toEqual([80, 24])
    for (let i = 0; i < 50; i++) {
      const racing = spawn('sh', ['-c', 'exit 0'])
      let n = 0
      const timer = setInterval(() => racing.resize(80 + (n++ % 20), 24), 0)
      await new Promise((r) => racing.onExit(r))
      racing.resize(81, 25)
      clearInterval(timer)
    }
  })

  it('a write larger than the terminal takes, to a program that reads slowly, neither blocks JS nor spins a CPU', async () => {
    const size = 1 << 20
    const reader = [
      'import os, sys, time, tty',
      'tty.setraw(0)',
      'os.write(1, b"ready\\r\\n")',
      'n = 0',
      `while n < ${size}:`,
      '    n += len(os.read(0, 16384))',
      '    time.sleep(0.02)',
      'os.write(1, b"got %d\\r\\n" % n)',
    ].join('\n')
    const p = spawn('python3', ['-c', reader])
    const w = watch(p)
    await w.until('ready')
    let ticks = 0
    let longest = 0
    let last = performance.now()
    const timer = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      ticks++
    }, 10)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const writeStart = performance.now()
    p.write('z'.repeat(size))
    const writeMs = performance.now() - writeStart
    await w.exit
    const wallMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    clearInterval(timer)
    expect(w.text()).toContain(`got ${size}\r\n`)
    // The write returned at once, timers kept firing while the program
    // read, and this process used a small part of one CPU meanwhile (a
    // retry loop would use all of it).
    expect(writeMs).toBeLessThan(500)
    expect(ticks).toBeGreaterThan(10)
    expect(longest).toBeLessThan(1000)
    expect((cpu.user + cpu.system) / 1000 / wallMs).toBeLessThan(0.5)
  }, 60_000)
})
