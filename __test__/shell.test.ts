// Shell and executeShell against real shells: exit codes, exact output,
// persistent state, per-run cwd/env, multi-line commands, timeouts, aborts,
// close, concurrency and errors. Every behaviour is checked with bash and
// dash (and zsh and fish where they are installed; fish in its own language
// where it differs, and not where it lacks the construct).
import { describe, it, expect, afterEach, vi } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { Shell, executeShell, type PtypilotError } from '../index.js'
import { alive, have } from './helpers.js'

const shells = ['bash', 'dash', ...(have('zsh') ? ['zsh'] : []), ...(have('fish') ? ['fish'] : [])]

/** `set -o pipefail` is new in POSIX (2024): older dash releases, such as 0.5.12 in Debian 12, reject it. Only that case is skipped. */
function hasPipefail(program: string): boolean {
  return spawnSync(program, ['-c', 'set -o pipefail']).status === 0
}

/** The pid a command printed on its last line (zsh announces background jobs first: `[1] 1234`). */
function pidOf(output: string): number {
  const pid = Number(output.trim().split('\n').pop())
  expect(Number.isInteger(pid) && pid > 1).toBe(true)
  return pid
}

describe.each(shells)('Shell with %s', (program) => {
  /** The command in POSIX sh, or in fish's language for fish. */
  const sh = (posix: string, fish: string) => (program === 'fish' ? fish : posix)
  /** A command that ends with status `n` without ending the shell. */
  const exitWith = (n: number) => sh(`(exit ${n})`, `sh -c 'exit ${n}'`)
  /** A command that ends the shell with status `n`. */
  const endShell = (n: number) => sh(`exit ${n}`, `exec sh -c 'exit ${n}'`)
  const pidVar = sh('$$', '$fish_pid')
  let open: Shell[] = []
  function shell(options: ConstructorParameters<typeof Shell>[0] = {}): Shell {
    const s = new Shell({ shell: program, ...options })
    open.push(s)
    return s
  }
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()))
    open = []
  })

  describe('exit codes', () => {
    it('reports the status of true, false and a subshell exit', async () => {
      const s = shell()
      expect((await s.run({ command: 'true' })).exitCode).toBe(0)
      expect((await s.run({ command: 'false' })).exitCode).toBe(1)
      const r = await s.run({ command: exitWith(7) })
      expect(r).toEqual({ exitCode: 7, output: '', timedOut: false, cancelled: false, truncated: false })
    })

    it.skipIf(!hasPipefail(program))('reports a failing pipeline stage with set -o pipefail', async () => {
      const s = shell()
      expect((await s.run({ command: 'false | true' })).exitCode).toBe(0)
      expect((await s.run({ command: 'set -o pipefail; false | true' })).exitCode).toBe(1)
      // The option persists, as it would in a terminal.
      expect((await s.run({ command: '(exit 3) | cat' })).exitCode).toBe(3)
    })
  })

  describe('output', () => {
    it('is exactly what the command printed, also without a trailing newline', async () => {
      const s = shell()
      expect((await s.run({ command: 'printf abc' })).output).toBe('abc')
      expect((await s.run({ command: 'echo hello; echo world >&2' })).output).toBe('hello\nworld\n')
      expect((await s.run({ command: 'true' })).output).toBe('')
    })

    it('delivers 50 000 lines complete and in order, to onData and in the result', async () => {
      const s = shell()
      const chunks: string[] = []
      const command = sh('i=1; while [ $i -le 50000 ]; do echo "line $i"; i=$((i+1)); done', 'for i in (seq 50000); echo "line $i"; end')
      const r = await s.run({ command }, (c) => chunks.push(c))
      const expected = Array.from({ length: 50000 }, (_, i) => `line ${i + 1}\n`).join('')
      expect(r.exitCode).toBe(0)
      expect(r.output.length).toBe(expected.length)
      expect(r.output === expected).toBe(true)
      expect(chunks.join('') === expected).toBe(true)
    })

    it('strips escape sequences and applies carriage returns', async () => {
      const s = shell()
      const r = await s.run({ command: "printf '\\033[31mred\\033[0m\\n 10%%\\r 50%%\\r100%%\\n'" })
      expect(r.output).toBe('red\n100%\n')
    })

    it('is not ended by a marker with the wrong nonce', async () => {
      const s = shell()
      const r = await s.run({
        command: `printf 'a\\033]133;D;0;0123456789abcdef0123456789abcdef\\007b\\n'; echo after; ${exitWith(5)}`,
      })
      expect(r.output).toBe('ab\nafter\n')
      expect(r.exitCode).toBe(5)
    })

    it('keeps head and tail when maxOutputBytes is exceeded', async () => {
      const s = shell()
      const r = await s.run({ command: 'seq 1 10000', maxOutputBytes: 1000 })
      expect(r.truncated).toBe(true)
      expect(r.output.startsWith('1\n2\n3\n')).toBe(true)
      expect(r.output.endsWith('9999\n10000\n')).toBe(true)
      expect(r.output).toMatch(/bytes of output omitted/)
    })
  })

  describe('state between runs', () => {
    it('keeps the directory after cd', async () => {
      const s = shell()
      await s.run({ command: 'cd /tmp' })
      expect((await s.run({ command: 'pwd' })).output).toBe('/tmp\n')
    })

    it('keeps exported variables', async () => {
      const s = shell()
      await s.run({ command: 'export X=1' })
      expect((await s.run({ command: 'echo $X' })).output).toBe('1\n')
    })

    it('applies per-run env to that run only', async () => {
      const s = shell()
      expect((await s.run({ command: 'echo "[$PER_RUN]"', env: { PER_RUN: 'a b' } })).output).toBe('[a b]\n')
      expect((await s.run({ command: 'echo "[$PER_RUN]"' })).output).toBe('[]\n')
    })

    it('applies per-run cwd to that run only, relative to the shell directory', async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'ptypilot-test-cwd-')))
      try {
        mkdirSync(join(base, 'sub'))
        const s = shell({ cwd: base })
        expect((await s.run({ command: 'pwd', cwd: '/usr' })).output).toBe('/usr\n')
        expect((await s.run({ command: 'pwd' })).output).toBe(`${base}\n`)
        expect((await s.run({ command: 'pwd', cwd: 'sub' })).output).toBe(`${base}/sub\n`)
        // A cd inside a run with cwd stays inside that run.
        await s.run({ command: 'cd /', cwd: 'sub' })
        expect((await s.run({ command: 'pwd' })).output).toBe(`${base}\n`)
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    })
  })

  describe('command text', () => {
    it('runs multi-line commands with quotes', async () => {
      const s = shell()
      const r = await s.run({
        command: sh(
          'a="it\'s"\nif [ -n "$a" ]; then\n  echo "$a"\nfi\necho \'$a\' "two  spaces"',
          'set a "it\'s"\nif test -n "$a"\n  echo "$a"\nend\necho \'$a\' "two  spaces"',
        ),
      })
      expect(r.output).toBe("it's\n$a two  spaces\n")
      expect(r.exitCode).toBe(0)
    })

    it.skipIf(program === 'fish')('runs a here-doc, also as the last line without a newline', async () => {
      const s = shell()
      const r = await s.run({ command: "cat <<'EOF'\nkeep $HOME as is\n  and indentation\nEOF" })
      expect(r.output).toBe('keep $HOME as is\n  and indentation\n')
    })

    it("names the shell, not ptypilot's command file, in the shell's own error messages", async () => {
      const s = shell()
      const expected: Record<string, [string, string]> = {
        bash: ['bash: nosuch: command not found\n', "bash: line 2: syntax error near unexpected token `then'\nbash: line 2: `if then'\n"],
        dash: ['dash: 1: nosuch: not found\n', 'dash: 2: Syntax error: "then" unexpected\n'],
        zsh: ['zsh:1: command not found: nosuch\n', "zsh:3: parse error near `\\n'\n"],
        fish: ['fish: Unknown command: nosuch\nfish (line 1): \nnosuch\n^~~~~^\n', 'fish (line 2): Missing end to balance this if statement\nif then\n^^\n'],
      }
      const [notFound, syntax] = expected[program]
      const missing = await s.run({ command: 'nosuch' })
      expect(missing.exitCode).toBe(127)
      expect(missing.output).toBe(notFound)
      const broken = await s.run({ command: 'echo before\nif then\n' })
      expect(broken.output).not.toContain('ptypilot-shell')
      expect(broken.output.endsWith(syntax)).toBe(true)
      // In a subshell too (a per-run cwd).
      const elsewhere = await s.run({ command: 'nosuch', cwd: '/' })
      expect(elsewhere.output).toBe(notFound)
    })

    it('gives commands end-of-file on stdin instead of waiting for input', async () => {
      const s = shell()
      const r = await s.run({ command: sh('cat; read line; echo "read=$?"', 'cat; read line; echo "read=$status"'), timeoutMs: 10_000 })
      expect(r.timedOut).toBe(false)
      expect(r.output).toBe('read=1\n')
    })

    it('starts a new shell after the command ends the shell', async () => {
      const s = shell()
      await s.run({ command: 'cd /tmp' })
      const first = s.pid
      const r = await s.run({ command: `echo bye; ${endShell(4)}` })
      expect(r.exitCode).toBe(4)
      expect(r.output).toMatch(/^bye\n/)
      expect(s.pid).toBeNull()
      const next = await s.run({ command: `echo ${pidVar}; pwd` })
      expect(next.exitCode).toBe(0)
      const [pid] = next.output.split('\n')
      expect(Number(pid)).not.toBe(first)
      expect(Number(pid)).toBe(s.pid)
    })
  })

  describe('timeouts and aborts', () => {
    it('stops sleep at the timeout promptly; the same shell runs the next command', async () => {
      const s = shell()
      await s.run({ command: 'cd /tmp' })
      const pid = s.pid
      const started = Date.now()
      const r = await s.run({ command: 'sleep 100', timeoutMs: 200 })
      expect(Date.now() - started).toBeLessThan(1500)
      expect(r).toMatchObject({ exitCode: null, timedOut: true, cancelled: false })
      const next = await s.run({ command: 'echo ok; pwd' })
      expect(next.output).toBe('ok\n/tmp\n')
      expect(s.pid).toBe(pid)
    })

    it("leaves the shell's report on the stopped job out of the output", async () => {
      const s = shell()
      /** Runs `command` and stops it once it printed `printed` (a timeout could fire before it ran). */
      const stopAfter = (command: string, printed: string) => {
        const ac = new AbortController()
        let seen = ''
        return s.run({ command, signal: ac.signal }, (chunk) => {
          seen += chunk
          if (seen.length >= printed.length) ac.abort()
        })
      }
      // The blank line after SIGINT, and "Terminated" / "zsh: terminated ..." after SIGTERM.
      const interrupted = await stopAfter('echo a; sleep 100', 'a\n')
      expect(interrupted).toMatchObject({ cancelled: true, output: 'a\n' })
      const terminated = await stopAfter(sh("trap '' INT; echo b; sleep 100", "echo b; sh -c 'trap \"\" INT; sleep 100'"), 'b\n')
      expect(terminated).toMatchObject({ cancelled: true, output: 'b\n' })
      // Blank lines the command printed before the stop stay.
      const blank = await stopAfter('echo c; echo; echo; sleep 100', 'c\n\n\n')
      expect(blank).toMatchObject({ cancelled: true, output: 'c\n\n\n' })
    })

    it('stops a command that ignores SIGINT', async () => {
      const s = shell()
      const started = Date.now()
      const r = await s.run({ command: sh("trap '' INT; sleep 100", "sh -c 'trap \"\" INT; sleep 100'"), timeoutMs: 200 })
      expect(r).toMatchObject({ exitCode: null, timedOut: true })
      expect(Date.now() - started).toBeLessThan(10_000)
      expect((await s.run({ command: 'echo ok' })).output).toBe('ok\n')
    })

    it('a timeout that fires as the command starts stops the whole command, and nothing runs later', async () => {
      const s = shell()
      await s.run({ command: 'true' })
      const pid = s.pid
      for (let i = 0; i < 15; i++) {
        const r = await s.run({ command: 'sleep 5; echo ran', timeoutMs: i % 5 })
        expect(r).toMatchObject({ exitCode: null, timedOut: true })
        expect(r.output).toBe('')
        // Ctrl-C stopped it: the shell was not killed as a last resort (a
        // SIGINT that met the shell reading a line did that, or cut the next
        // line short so that the next run ran nothing).
        expect(s.pid).toBe(pid)
        expect((await s.run({ command: 'echo next' })).output).toBe('next\n')
      }
    })

    it('stops a busy loop of shell builtins', async () => {
      const s = shell()
      const r = await s.run({ command: sh('while :; do :; done', 'while true; end'), timeoutMs: 200 })
      expect(r).toMatchObject({ exitCode: null, timedOut: true })
      expect((await s.run({ command: 'echo ok' })).output).toBe('ok\n')
    })

    it('cancels on AbortSignal mid-run, with the output so far', async () => {
      const s = shell()
      const ac = new AbortController()
      const started = Date.now()
      const r = await s.run({ command: 'echo started; sleep 100', signal: ac.signal }, (chunk) => {
        if (chunk.includes('started')) ac.abort()
      })
      expect(r).toMatchObject({ exitCode: null, cancelled: true, timedOut: false })
      expect(r.output).toMatch(/^started\n/)
      expect(Date.now() - started).toBeLessThan(5000)
      expect((await s.run({ command: 'echo ok' })).output).toBe('ok\n')
    })

    it('resolves cancelled at once for an already aborted signal', async () => {
      const s = shell()
      const r = await s.run({ command: 'echo never', signal: AbortSignal.abort() })
      expect(r).toEqual({ exitCode: null, output: '', timedOut: false, cancelled: true, truncated: false })
    })

    it('abort() resolves while idle and cancels a running command', async () => {
      const s = shell()
      await s.abort()
      let seen!: () => void
      const running = new Promise<void>((r) => (seen = r))
      const run = s.run({ command: 'echo go; sleep 100' }, (c) => c.includes('go') && seen())
      await running
      await s.abort()
      expect(s.busy).toBe(false)
      expect(await run).toMatchObject({ exitCode: null, cancelled: true })
      expect((await s.run({ command: 'echo ok' })).output).toBe('ok\n')
    })

    it('rejects a second concurrent run with ERR_ALREADY_RUNNING; the first is unaffected', async () => {
      const s = shell()
      const first = s.run({ command: 'echo first' })
      const second = s.run({ command: 'echo second' })
      await expect(second).rejects.toMatchObject({ code: 'ERR_ALREADY_RUNNING' })
      expect((await first).output).toBe('first\n')
      expect((await s.run({ command: 'echo third' })).output).toBe('third\n')
    })
  })

  describe('close', () => {
    it('leaves no process: the shell, a background job and a job that left the tree', async () => {
      const s = shell()
      const job = pidOf((await s.run({ command: sh('sleep 1000 & echo $!', 'sleep 1000 & echo $last_pid') })).output)
      const orphan = pidOf((await s.run({ command: sh('(sleep 1001 & echo $!)', "sh -c 'sleep 1001 & echo $!'") })).output)
      const pid = s.pid!
      expect([pid, job, orphan].every(alive)).toBe(true)
      await s.close()
      expect(alive(pid)).toBe(false)
      expect(alive(job)).toBe(false)
      expect(alive(orphan)).toBe(false)
      expect(s.pid).toBeNull()
    })

    it('cancels the running command and then refuses runs with ERR_NOT_RUNNING', async () => {
      const s = shell()
      let seen!: () => void
      const running = new Promise<void>((r) => (seen = r))
      const run = s.run({ command: 'echo go; sleep 100' }, (c) => c.includes('go') && seen())
      await running
      await s.close()
      expect(await run).toMatchObject({ exitCode: null, cancelled: true })
      await expect(s.run({ command: 'true' })).rejects.toMatchObject({ code: 'ERR_NOT_RUNNING' })
      await s.close()
    })

    it('also ends what a shell that exited left behind', async () => {
      const s = shell()
      const job = pidOf(
        (await s.run({ command: sh("trap '' HUP; sleep 1002 & echo $!", "sh -c 'trap \"\" HUP; sleep 1002 & echo $!'") })).output,
      )
      expect((await s.run({ command: endShell(0) })).exitCode).toBe(0)
      await s.close()
      expect(alive(job)).toBe(false)
    })
  })

  it('executeShell runs in a fresh shell and ends it', async () => {
    const chunks: string[] = []
    const r = await executeShell(
      { shell: program, command: `echo ${pidVar}; echo "$V"; pwd; ${endShell(3)}`, cwd: '/usr', env: { V: 'v' } },
      (c) => chunks.push(c),
    )
    const [pid, v, dir] = r.output.split('\n')
    expect(r.exitCode).toBe(3)
    expect([v, dir]).toEqual(['v', '/usr'])
    expect(chunks.join('')).toBe(r.output)
    expect(alive(Number(pid))).toBe(false)
    const timed = await executeShell({ shell: program, command: `echo ${pidVar}; sleep 100`, timeoutMs: 300 })
    expect(timed).toMatchObject({ exitCode: null, timedOut: true })
    expect(alive(pidOf(timed.output.split('\n')[0]))).toBe(false)
  })
})

describe('Shell defaults and errors', () => {
  it('uses bash by default where it is installed', async () => {
    const r = await executeShell({ command: 'echo "${BASH_VERSION:+bash}"' })
    expect(r.output).toBe(have('bash') ? 'bash\n' : '\n')
  })

  it.skipIf(!have('bash'))('keeps command text private (0600 file in a 0700 directory) and removes it after the run', async () => {
    const s = new Shell({ shell: 'bash' })
    try {
      const r = await s.run({ command: 'stat -c %a "$BASH_SOURCE" "$(dirname "$BASH_SOURCE")"; echo "$BASH_SOURCE"' })
      const [file, dir, path] = r.output.split('\n')
      expect([file, dir]).toEqual(['600', '700'])
      expect((await s.run({ command: `test -e '${path}'` })).exitCode).toBe(1)
    } finally {
      await s.close()
    }
  })

  it('sets PAGER and GIT_PAGER to cat unless given', async () => {
    expect((await executeShell({ command: 'echo $PAGER $GIT_PAGER' })).output).toBe('cat cat\n')
    expect((await executeShell({ command: 'echo $PAGER', env: { PAGER: 'more' } })).output).toBe('more\n')
  })

  it('rejects bad options with ERR_INVALID_ARG naming the key', async () => {
    expect(() => new Shell({ cols: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(/options\.cols/) }))
    expect(() => new Shell({ shel: 'bash' } as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(/shel/) }))
    const s = new Shell()
    try {
      const cases: [unknown, RegExp][] = [
        [{}, /command/],
        [{ command: '' }, /options\.command/],
        [{ command: 'true', timeoutMs: -1 }, /options\.timeoutMs/],
        [{ command: 'true', env: { 'A-B': 'x' } }, /options\.env/],
        [{ command: 'true', env: { A: 1 } }, /options\.env\.A/],
        [{ command: 'true', cwd: 5 }, /options\.cwd/],
        [{ command: 'true', signal: 'nope' }, /options\.signal/],
        [{ command: 'true', tiemoutMs: 5 }, /tiemoutMs/],
        ['echo', /options/],
      ]
      for (const [options, message] of cases) {
        await expect(s.run(options as never), JSON.stringify(options)).rejects.toMatchObject({
          code: 'ERR_INVALID_ARG',
          message: expect.stringMatching(message),
        })
      }
      await expect(s.run({ command: 'true' }, 'x' as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG' })
      // None of that started a shell or left it busy.
      expect(s.pid).toBeNull()
      expect((await s.run({ command: 'echo fine' })).output).toBe('fine\n')
    } finally {
      await s.close()
    }
  })

  it('rejects with ERR_SPAWN when the shell cannot start', async () => {
    const err = (await new Shell({ shell: 'no-such-shell-ptypilot' }).run({ command: 'true' }).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_SPAWN')
    expect(err.errnoName).toBe('ENOENT')
    expect(err.path).toBe('no-such-shell-ptypilot')
    const cwd = (await executeShell({ command: 'true', cwd: '/no/such/dir' }).catch((e) => e)) as PtypilotError
    expect(cwd).toMatchObject({ code: 'ERR_SPAWN', path: '/no/such/dir' })
  })

  it('rejects a run cwd that is not a directory with ERR_SPAWN; the shell stays usable', async () => {
    const s = new Shell()
    try {
      await expect(s.run({ command: 'pwd', cwd: '/no/such/dir' })).rejects.toMatchObject({
        code: 'ERR_SPAWN',
        errnoName: 'ENOENT',
        path: '/no/such/dir',
      })
      expect((await s.run({ command: 'echo ok' })).output).toBe('ok\n')
    } finally {
      await s.close()
    }
  })

  it('works in worker threads, with the worker\'s own env and streamed output', async () => {
    const indexPath = fileURLToPath(new URL('../index.js', import.meta.url))
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { Shell } = require(${JSON.stringify(indexPath)});
      process.env.PTYPILOT_WORKER = 'worker-' + workerData;
      (async () => {
        const shell = new Shell();
        let streamed = '';
        const r = await shell.run({ command: 'echo "$PTYPILOT_WORKER"' }, (c) => (streamed += c));
        await shell.close();
        parentPort.postMessage({ output: r.output, streamed });
      })();
    `
    const results = await Promise.all(
      [1, 2].map(
        (n) =>
          new Promise<{ output: string; streamed: string }>((resolve, reject) => {
            const worker = new Worker(source, { eval: true, workerData: n })
            worker.once('message', (m) => {
              resolve(m)
              void worker.terminate()
            })
            worker.once('error', reject)
          }),
      ),
    )
    results.forEach(({ output, streamed }, i) => {
      expect(output).toBe(`worker-${i + 1}\n`)
      expect(streamed).toBe(output)
    })
  })

  it('reports a listener that throws as a warning and still completes the run', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      const r = await executeShell({ command: 'echo one; echo two' }, () => {
        throw new Error('listener boom')
      })
      expect(r.output).toBe('one\ntwo\n')
      await vi.waitFor(() => expect(warnings.some((w) => w.includes('listener boom'))).toBe(true))
    } finally {
      process.off('warning', onWarning)
    }
  })
})
