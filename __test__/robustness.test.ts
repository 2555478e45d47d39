// What a caller passes or a command does cannot crash, hang or leak: huge
// durations, signal look-alikes, shells whose markers stop appearing, shells
// at worker termination and process.exit(), hostile JSON for the tool
// registry, bad environment variables, and direct construction of Process.
import { describe, it, expect, vi } from 'vitest'
import { spawn as spawnChild } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PtySession, Process, Shell, ToolRegistry, exec, type PtypilotError } from '../index.js'
import { alive, have, linuxOnly } from './helpers.js'

const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))

async function failure(f: () => unknown): Promise<PtypilotError> {
  try {
    await f()
  } catch (err) {
    return err as PtypilotError
  }
  throw new Error('expected a failure')
}

function runNode(script: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnChild(process.execPath, ['-e', script], { env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

describe('durations beyond what a clock can hold', () => {
  it('are ERR_INVALID_ARG naming the option, for every timeout and grace', async () => {
    const session = PtySession.spawn({ command: 'sleep', args: ['30'] })
    const p = Process.fromPid(session.pid!)!
    const registry = new ToolRegistry()
    const shell = new Shell()
    const cases: [() => unknown, string][] = [
      [() => p.waitForExit({ timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => p.terminate({ gracefulMs: 1e300 }), 'options.gracefulMs'],
      [() => p.terminate({ timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => p.terminate({ timeoutMs: 1e12 + 1 }), 'options.timeoutMs'],
      [() => session.terminate({ graceMs: 1e300 }), 'options.graceMs'],
      [() => session.waitForSettle({ timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => session.waitForSettle({ quietMs: Number.MAX_VALUE }), 'options.quietMs'],
      [() => session.waitFor('x', { timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => session.onScreen(() => {}, { throttleMs: 2 ** 31 }), 'options.throttleMs'],
      [() => PtySession.spawn({ command: 'true', timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => exec({ command: 'true', timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => shell.run({ command: 'true', timeoutMs: 1e300 }), 'options.timeoutMs'],
      [() => registry.wait('x', { timeoutMs: 1e300 }), 'options.timeoutMs'],
    ]
    for (const [call, name] of cases) {
      const err = await failure(call)
      expect(err.code, `${call}`).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain(name)
    }
    // The largest accepted value works.
    expect(await p.waitForExit({ timeoutMs: 0.5 })).toBe(false)
    const slow = p.terminate({ gracefulMs: 1e12, timeoutMs: 1e12 })
    session.kill()
    expect(await slow).toBe(true)
    await shell.close()
  })
})

describe('AbortSignal look-alikes', () => {
  const halfSignal = { aborted: false, addEventListener() {} }

  it('without removeEventListener are refused before anything starts', async () => {
    const shell = new Shell()
    const p = Process.fromPid(process.pid)!
    const calls: (() => unknown)[] = [
      () => new PtySession().start({ command: 'true', signal: halfSignal as never }),
      () => PtySession.spawn({ command: 'true', signal: halfSignal as never }),
      () => exec({ command: 'true', signal: halfSignal as never }),
      () => shell.run({ command: 'true', signal: halfSignal as never }),
      () => p.waitForExit({ timeoutMs: 1, signal: halfSignal as never }),
      () => p.terminate({ signal: halfSignal as never }),
    ]
    for (const call of calls) {
      const err = await failure(call)
      expect(err.code).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain('options.signal must be an AbortSignal')
    }
    expect(shell.busy).toBe(false)
    await shell.close()
  })

  it('with both methods work, and the listener is removed at the end', async () => {
    const listeners = new Set<() => void>()
    const like = {
      aborted: false,
      addEventListener: (_: string, f: () => void) => listeners.add(f),
      removeEventListener: (_: string, f: () => void) => listeners.delete(f),
    }
    const exit = await exec({ command: 'true', signal: like as never })
    expect(exit.exitCode).toBe(0)
    expect(listeners.size).toBe(0)
    const session = PtySession.spawn({ command: 'sleep', args: ['30'], signal: like as never })
    expect(listeners.size).toBe(1)
    like.aborted = true
    for (const f of listeners) f()
    expect(await session.exited).toMatchObject({ cancelled: true })
    expect(listeners.size).toBe(0)
  })

  it('a signal getter that throws rejects (never throws synchronously)', async () => {
    const shell = new Shell()
    const options = {
      command: 'true',
      get signal(): AbortSignal {
        throw new Error('no signal here')
      },
    }
    const pending = shell.run(options)
    expect(pending).toBeInstanceOf(Promise)
    const err = await failure(() => pending)
    expect(err.code).toBe('ERR_INVALID_ARG')
    expect(err.message).toBe('options.signal could not be read: it threw Error: no signal here')
    expect((await failure(() => new PtySession().start(options))).code).toBe('ERR_INVALID_ARG')
    await shell.close()
  })
})

describe('a shell whose markers stop appearing is replaced', () => {
  const breakers: [string, string][] = [
    ['bash', 'exec 2>&-'],
    ['bash', 'unset __ptypilot_ps1; PS1='],
    ['bash', 'exec >/dev/null 2>&1'],
    ['bash', "PROMPT_COMMAND='sleep 1000'"],
    ['dash', 'exec 2>&-'],
  ].filter(([program]) => have(program)) as [string, string][]

  it.each(breakers)('%s after `%s`: runs without a timeout still finish, in a fresh shell', async (program, breaker) => {
    const shell = new Shell({ shell: program })
    try {
      const first = await shell.run({ command: `echo one; ${breaker}` })
      expect(first.output).toBe('one\n')
      const broken = shell.pid
      const second = await shell.run({ command: 'echo two; cd /tmp' })
      expect(second).toMatchObject({ exitCode: 0, output: 'two\n' })
      expect(shell.pid).not.toBe(broken)
      await vi.waitFor(() => expect(alive(broken!)).toBe(false))
      // The fresh shell keeps state as usual.
      expect((await shell.run({ command: 'pwd' })).output).toBe('/tmp\n')
    } finally {
      await shell.close()
    }
  })

  it('a command that silences the shell mid-run still ends with its status (the markers go to /dev/tty)', async () => {
    const shell = new Shell({ shell: 'bash' })
    try {
      const r = await shell.run({ command: 'echo before; exec >/dev/null 2>&1; echo hidden; (exit 4)' })
      expect(r).toMatchObject({ exitCode: 4, output: 'before\n', timedOut: false, cancelled: false })
      expect((await shell.run({ command: 'echo after' })).output).toBe('after\n')
    } finally {
      await shell.close()
    }
  })

  it('a slow builtin (wait) is not mistaken for lost markers', async () => {
    const shell = new Shell({ shell: 'bash' })
    try {
      const r = await shell.run({ command: 'sleep 1.5 & wait; echo waited' })
      expect(r.exitCode).toBe(0)
      expect(r.output).toMatch(/waited\n$/)
      const pid = shell.pid
      expect((await shell.run({ command: 'echo next' })).output).toBe('next\n')
      expect(shell.pid).toBe(pid)
    } finally {
      await shell.close()
    }
  })

  it('a probe line still running when the command ends is not taken for a command that broke the shell', async () => {
    // `wait` leaves bash idle long enough to get a probe line, which it runs
    // right after the command, with its own redirections (`2>/dev/null`)
    // applied to the shell itself. A slow consumer of the output (as on a
    // loaded machine) lets bash get there before its descriptors are looked
    // at, and a one-shot DEBUG trap keeps it there a while.
    const shell = new Shell({ shell: 'bash' })
    const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
    try {
      const trap = `trap '[ /dev/fd/2 -ef /dev/null ] && { sleep 0.5; trap - DEBUG; }' DEBUG`
      const r = await shell.run({ command: `${trap}; sleep 1.2 & wait; printf waited` }, (data) => {
        if (data.endsWith('waited')) pause(200)
      })
      expect(r.warning).toBeUndefined()
      expect(r.exitCode).toBe(0)
      expect(r.output).toMatch(/waited$/)
      const pid = shell.pid
      expect(pid).not.toBeNull()
      expect((await shell.run({ command: 'echo next' })).output).toBe('next\n')
      expect(shell.pid).toBe(pid)
    } finally {
      await shell.close()
    }
  })
})

describe('shells are in the exit cleanup', () => {
  it('process.exit() during a run whose command ignores SIGHUP leaves no process and no temp dir', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'ptypilot-exit-'))
    try {
      const child = await runNode(
        `
        const { Shell } = require(${JSON.stringify(indexPath)});
        const s = new Shell();
        s.run({ command: "trap '' HUP; echo started; sleep 60 & sleep 60" }, (d) => {
          if (!d.includes('started')) return;
          const { execSync } = require('node:child_process');
          const members = execSync('ps -o pid= -s ' + s.pid).toString().trim().split(/\\s+/).map(Number);
          console.log(JSON.stringify({ members, dirs: require('node:fs').readdirSync(${JSON.stringify(tmp)}) }));
          process.exit(0);
        });
      `,
        { ...process.env, TMPDIR: tmp },
      )
      expect(child.code).toBe(0)
      const r = JSON.parse(child.stdout.trim().split('\n').pop()!)
      expect(r.dirs).toHaveLength(1)
      expect(r.members.length).toBeGreaterThanOrEqual(3)
      await vi.waitFor(() => expect(r.members.filter(alive)).toEqual([]))
      expect(readdirSync(tmp)).toEqual([])
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('a Shell in a worker ends with worker.terminate(), also when the main thread loaded ptypilot', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/self/task and /proc/self/fd')
    const child = await runNode(`
      const { Worker } = require('node:worker_threads');
      const { PtySession } = require(${JSON.stringify(indexPath)});
      const fs = require('node:fs');
      const threads = () => fs.readdirSync('/proc/self/task').length;
      // Descriptors of the kinds a session holds (Node opens others lazily).
      const fds = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return /ptmx|pidfd|eventfd/.test(fs.readlinkSync('/proc/self/fd/' + fd));
        } catch {
          return false;
        }
      }).length;
      (async () => {
        // The main thread uses the addon too.
        await PtySession.spawn({ command: 'true' }).exited;
        const before = { threads: threads(), fds: fds() };
        const worker = new Worker(\`
          const { parentPort } = require('node:worker_threads');
          const { Shell } = require(${JSON.stringify(indexPath)});
          const s = new Shell();
          // The command ignores SIGHUP, as the shell's own end would send it.
          s.run({ command: "trap '' HUP; sleep 60 & echo started $!; wait" }, (d) => {
            const m = /started ([0-9]+)/.exec(d);
            if (m) parentPort.postMessage([s.pid, Number(m[1])]);
          });
        \`, { eval: true });
        const [pid, command] = await new Promise((r) => worker.once('message', r));
        await worker.terminate();
        const deadline = Date.now() + 5000;
        let after;
        do {
          await new Promise((r) => setTimeout(r, 50));
          after = { threads: threads(), fds: fds() };
        } while (Date.now() < deadline && (after.fds > before.fds || after.threads > before.threads));
        console.log(JSON.stringify({ pid, command, before, after }));
      })();
    `)
    expect(child.stderr).toBe('')
    expect(child.code).toBe(0)
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!)
    expect(r.command).toBeGreaterThan(1)
    await vi.waitFor(() => expect([alive(r.pid), alive(r.command)]).toEqual([false, false]))
    expect(r.after.fds).toBeLessThanOrEqual(r.before.fds)
    expect(r.after.threads).toBeLessThanOrEqual(r.before.threads)
  })
})

describe('the tool registry takes JSON and says which field is not', () => {
  const tool = (extra: object) => ({ name: 't', commands: [{ name: 'c', program: ['echo'], ...extra }] })
  const cyclic: Record<string, unknown> = { name: 't' }
  cyclic.commands = [{ name: 'c', program: ['echo'], self: cyclic }]
  let deep: Record<string, unknown> = {}
  const deepRoot = deep
  for (let i = 0; i < 150; i++) deep = (deep.a = {}) as Record<string, unknown>

  it('register: ERR_INVALID_ARG naming the field', () => {
    const r = new ToolRegistry()
    const cases: [unknown, string][] = [
      [tool({ timeoutMs: NaN }), 'tool.commands[0].timeoutMs must be a finite number, got NaN'],
      [tool({ settleMs: Infinity }), 'tool.commands[0].settleMs must be a finite number, got Infinity'],
      [tool({ settleMs: -Infinity }), 'tool.commands[0].settleMs must be a finite number, got -Infinity'],
      [tool({ description: Symbol('d') }), 'tool.commands[0].description must be JSON data'],
      [tool({ env: { A: () => 'x' } }), 'tool.commands[0].env.A must be JSON data'],
      [tool({ program: ['echo', undefined] }), 'tool.commands[0].program[1] must not be undefined'],
      [tool({ argsSchema: { enum: [1n] } }), 'tool.commands[0].argsSchema.enum[0] must be JSON data'],
      [cyclic, 'tool.commands[0].self refers back'],
      [tool({ argsSchema: deepRoot }), 'is nested more than 100 levels deep'],
      [tool({ env: { 'A=B': 'x' } }), 'A=B'],
    ]
    for (const [value, text] of cases) {
      let err: PtypilotError | undefined
      try {
        r.register(value as never)
      } catch (e) {
        err = e as PtypilotError
      }
      expect(err?.code, text).toBe('ERR_INVALID_ARG')
      expect(err?.message).toContain(text)
    }
    expect(r.names()).toEqual([])
  })

  it('call: ERR_INVALID_INPUT naming the field', async () => {
    const r = new ToolRegistry()
    r.register(tool({}))
    const spawn = (extra: object) => ({ action: 'spawn', command: 'c', args: [], ...extra })
    const cyclicInput: Record<string, unknown> = spawn({})
    cyclicInput.again = cyclicInput
    const cases: [unknown, string][] = [
      [spawn({ args: [NaN] }), 'input.args[0] must be a finite number, got NaN'],
      [spawn({ args: [Infinity] }), 'input.args[0] must be a finite number, got Infinity'],
      [spawn({ args: [undefined] }), 'input.args[0] must not be undefined'],
      [spawn({ x: Symbol('s') }), 'input.x must be JSON data'],
      [spawn({ x: () => 1 }), 'input.x must be JSON data'],
      [cyclicInput, 'input.again refers back'],
      [deepRoot, 'is nested more than 100 levels deep'],
    ]
    for (const [input, text] of cases) {
      const err = await failure(() => r.call('t', input))
      expect(err.code, text).toBe('ERR_INVALID_INPUT')
      expect(err.message).toContain(text)
    }
    expect(r.list()).toEqual([])
  })
})

describe('environment variables and cwd', () => {
  const bad: [object, string][] = [
    [{ env: { 'A\0B': 'x' } }, 'options.env: "A\\0B" is not a variable name'],
    [{ env: { '': 'x' } }, 'options.env: "" is not a variable name'],
    [{ env: { 'PATH=/x:': 'z' } }, 'options.env: "PATH=/x:" is not a variable name'],
    [{ env: { A: 'x\0y' } }, 'options.env.A must not contain NUL characters'],
    [{ cwd: '/tmp\0x' }, 'options.cwd must not contain NUL characters'],
  ]

  it.each(bad)('%o is ERR_INVALID_ARG naming the key, for PtySession, exec and Shell', async (options, text) => {
    for (const call of [
      () => PtySession.spawn({ command: 'true', ...options }),
      () => exec({ command: 'true', ...options }),
      () => new Shell(options),
    ]) {
      const err = await failure(call)
      expect(err.code).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain(text)
    }
  })
})

describe('Process', () => {
  it('new Process() throws a coded error', () => {
    let err: PtypilotError | undefined
    try {
      new (Process as unknown as new () => unknown)()
    } catch (e) {
      err = e as PtypilotError
    }
    expect(err).toBeInstanceOf(TypeError)
    expect(err?.code).toBe('ERR_INVALID_ARG')
    expect(err?.message).toContain('Process.fromPid()')
  })
})
