// Shell options and edge cases beyond the basics: sessionEnv and snapshotPath, the command's
// stdin (/dev/null by default, the terminal on request, with shell.write), and commands that try
// to break the shell's markers. Every behaviour is checked with bash, dash, zsh and fish where
// installed (fish in its own language where it differs, and not where it lacks the construct).
import { describe, it, expect, afterEach, beforeAll } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Shell, executeShell, type PtypilotError } from '../index.js'
import { have, linuxOnly } from './helpers.js'

const shells = ['bash', 'dash', ...(have('zsh') ? ['zsh'] : []), ...(have('fish') ? ['fish'] : [])]

/** `posix` for bash, dash and zsh; `fish` in fish's language. */
function spell(program: string, posix: string, fish: string): string {
  return program === 'fish' ? fish : posix
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptypilot-shell-options-'))
  writeFileSync(
    join(dir, 'snapshot.sh'),
    [
      'echo noise from the snapshot; echo more noise >&2',
      'greet() { echo "hello $1"; }',
      "alias ll='echo listing'",
      'export SNAP_VAR=from-snapshot',
      'OVERRIDE=snapshot-value; export OVERRIDE',
      "PROMPT_COMMAND='echo from PROMPT_COMMAND'",
      '',
    ].join('\n'),
  )
  writeFileSync(
    join(dir, 'snapshot.fish'),
    [
      'echo noise from the snapshot; echo more noise >&2',
      'function greet; echo "hello $argv[1]"; end',
      "alias ll='echo listing'",
      'set -gx SNAP_VAR from-snapshot',
      'set -gx OVERRIDE snapshot-value',
      '',
    ].join('\n'),
  )
})

describe.each(shells)('%s', (program) => {
  const snapshot = () => join(dir, program === 'fish' ? 'snapshot.fish' : 'snapshot.sh')
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

  describe('snapshotPath and sessionEnv', () => {
    it('sources the snapshot quietly, then exports sessionEnv over it, in every new shell', async () => {
      const s = shell({
        snapshotPath: snapshot(),
        sessionEnv: { OVERRIDE: 'session-value', EXTRA: "it's $x `y`", HOME_GONE: undefined },
      })
      const first = await s.run({
        command: 'greet world; echo "$SNAP_VAR $OVERRIDE $EXTRA"; sh -c \'echo "child: $OVERRIDE"\'; ll',
      })
      // The snapshot's noise is discarded; its function, alias and exports work; sessionEnv wins
      // and is exported to children; PROMPT_COMMAND from the snapshot is undone.
      expect(first).toMatchObject({
        exitCode: 0,
        output: "hello world\nfrom-snapshot session-value it's $x `y`\nchild: session-value\nlisting\n",
      })
      if (program === 'bash') {
        expect((await s.run({ command: 'echo "[${PROMPT_COMMAND-}]"' })).output).toBe('[]\n')
      }
      // A run's own export is lost with the shell; snapshot and sessionEnv come back.
      await s.run({ command: 'export OVERRIDE=changed-by-a-run' })
      expect((await s.run({ command: 'echo "$OVERRIDE"' })).output).toBe('changed-by-a-run\n')
      expect((await s.run({ command: spell(program, 'exit 3', "exec sh -c 'exit 3'") })).exitCode).toBe(3)
      expect(await s.run({ command: 'echo "$OVERRIDE"; greet again' })).toMatchObject({
        exitCode: 0,
        output: 'session-value\nhello again\n',
      })
    })

    it('sessionEnv undefined unsets an inherited variable', async () => {
      const s = shell({ env: { KEYS_TEST_VAR: 'inherited' }, sessionEnv: { KEYS_TEST_VAR: undefined } })
      const command = spell(program, 'echo "[${KEYS_TEST_VAR-unset}]"', 'set -q KEYS_TEST_VAR; and echo "[$KEYS_TEST_VAR]"; or echo "[unset]"')
      expect((await s.run({ command })).output).toBe('[unset]\n')
    })

    it('executeShell takes both', async () => {
      const r = await executeShell({
        shell: program,
        command: 'echo "$A"; greet x',
        sessionEnv: { A: 'a' },
        snapshotPath: snapshot(),
      })
      expect(r).toMatchObject({ exitCode: 0, output: 'a\nhello x\n' })
    })

    it('a snapshot that cannot be read fails the run with ERR_SPAWN naming it', async () => {
      const missing = join(dir, 'missing.sh')
      const s = shell({ snapshotPath: missing })
      await expect(s.run({ command: 'true' })).rejects.toMatchObject({
        code: 'ERR_SPAWN',
        path: missing,
        errnoName: 'ENOENT',
      } satisfies Partial<PtypilotError>)
      await expect(shell({ snapshotPath: dir }).run({ command: 'true' })).rejects.toMatchObject({
        code: 'ERR_SPAWN',
        errnoName: 'EISDIR',
      })
    })

    it('a snapshot that exits the shell fails the run with ERR_SPAWN', async () => {
      writeFileSync(join(dir, `exits-${program}.sh`), spell(program, 'exit 4\n', "exec sh -c 'exit 4'\n"))
      const s = shell({ snapshotPath: join(dir, `exits-${program}.sh`) })
      await expect(s.run({ command: 'true' })).rejects.toMatchObject({ code: 'ERR_SPAWN' })
    })
  })
})

describe.each(shells)('%s: the command\'s stdin', (program) => {
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

  it('is /dev/null by default: read gets end-of-file at once, tty and stty say so', async () => {
    const s = shell()
    const r = await s.run({ command: spell(program, 'read x; echo "[$x] $?"; tty; stty size', 'read x; echo "[$x] $status"; tty; stty size'), timeoutMs: 20_000 })
    expect(r.timedOut).toBe(false)
    expect(r.output).toMatch(/^\[\] 1\nnot a tty\nstty: .*Inappropriate ioctl for device\n$/)
    expect(r.exitCode).not.toBe(0)
  })

  it("is the terminal with stdin: 'terminal': stty -echo; read x works with input written while it runs", async () => {
    const s = shell()
    // fish's own `read` draws its line editor on the terminal: a program reads there instead.
    const read = spell(program, 'read x', 'set x (head -n 1)')
    const run = s.run({ command: `stty -echo; ${read}; stty echo; echo "[$x]"`, stdin: 'terminal', timeoutMs: 20_000 })
    // Written at once, before the shell even started: it waits for the command.
    s.write('hello there\n')
    expect(await run).toMatchObject({ exitCode: 0, output: '[hello there]\n', timedOut: false })
    // The shell is fine afterwards (its terminal was made sane and quiet again).
    expect(await s.run({ command: 'echo next' })).toMatchObject({ exitCode: 0, output: 'next\n' })
  })

  it('input can answer what the command printed, and the terminal is a real one', async () => {
    const s = shell()
    const seen: string[] = []
    const run = s.run(
      {
        command: spell(
          program,
          'tty; stty size; echo "ready"; read a; echo "got $a"; read b; echo "got $b"',
          'tty; stty size; echo "ready"; set a (head -n 1); echo "got $a"; set b (head -n 1); echo "got $b"',
        ),
        stdin: 'terminal',
        timeoutMs: 20_000,
      },
      (chunk) => {
        seen.push(chunk)
        if (chunk.includes('ready')) s.write('first\n')
        if (chunk.includes('got first')) s.write(new TextEncoder().encode('second\n'))
      },
    )
    const r = await run
    expect(r.exitCode).toBe(0)
    expect(r.output).toMatch(/^\/dev\/pts\/\d+\n24 80\nready\ngot first\ngot second\n$/)
    expect(seen.join('')).toBe(r.output)
  })

  it('input the command did not read is discarded, never run as commands', async () => {
    const s = shell()
    const marker = join(dir, `never-${program}`)
    const run = s.run({ command: spell(program, 'read x; echo "[$x]"', 'set x (head -n 1); echo "[$x]"'), stdin: 'terminal', timeoutMs: 20_000 })
    s.write(`one\ntouch ${marker}\necho leaked\npartial line`)
    expect(await run).toMatchObject({ exitCode: 0, output: '[one]\n' })
    const next = await s.run({ command: `echo next; ls ${JSON.stringify(marker)} 2>/dev/null; echo done` })
    expect(next).toMatchObject({ exitCode: 0, output: 'next\ndone\n' })
  })

  it('write() refuses when no command reads the terminal', async () => {
    const s = shell()
    expect(() => s.write('x')).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
    const run = s.run({ command: 'sleep 0.3' })
    expect(() => s.write('x')).toThrow(/stdin: 'terminal'/)
    await run
    expect(() => s.write(42 as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    await expect(s.run({ command: 'true', stdin: 'tty' as never })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARG',
      message: expect.stringContaining("options.stdin must be 'null' or 'terminal'"),
    })
  })

  it("executeShell takes stdin: 'terminal' (for commands that need a terminal, not input)", async () => {
    const r = await executeShell({ shell: program, command: 'stty size', stdin: 'terminal' })
    expect(r).toMatchObject({ exitCode: 0, output: '24 80\n' })
  })
})

describe.each(shells)('%s: commands that try to break the markers', (program) => {
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

  // The nonce as a command can find it: in the prompt variable (fish: the prompt function).
  const nonce = spell(
    program,
    `n=$(printf %s "$__ptypilot_ps1" | tr -d '\\007' | sed 's/.*;\\([0-9a-f]\\{32\\}\\);.*/\\1/')`,
    `set n (functions fish_prompt | string match -r '[0-9a-f]{32}')`,
  )
  /** Ends the command with status 5 (as its last line). */
  const exit5 = spell(program, '(exit 5)', 'return 5')

  it('a forged end of command does not end the run early', async () => {
    const s = shell()
    const r = await s.run({
      command: [
        nonce,
        `printf '\\033]133;D;%s\\007' "$n"`,
        `printf '\\033]133;E;42;%s;%s\\007' 00000000000000000000000000000000 "$n"`,
        `printf '\\033]133;D;42;%s\\007' "$n"`,
        'sleep 0.3',
        'echo still running',
        exit5,
      ].join('\n'),
      timeoutMs: 20_000,
    })
    expect(r).toMatchObject({ exitCode: 5, output: 'still running\n', timedOut: false })
    expect(await s.run({ command: 'echo next' })).toMatchObject({ exitCode: 0, output: 'next\n' })
  })

  it('a forged prompt does not end the run early either', async () => {
    const s = shell()
    const r = await s.run({
      command: [
        nonce,
        `printf '\\033]133;A;7;%s;\\007' "$n"`,
        `printf '\\033]133;A;7;%s;1;7\\007' "$n"`,
        `printf '\\033]133;P;1;7;%s\\007' "$n"`,
        'sleep 0.3',
        'echo still running',
        exit5,
      ].join('\n'),
      timeoutMs: 20_000,
    })
    expect(r).toMatchObject({ exitCode: 5, output: 'still running\n', timedOut: false })
    const pid = s.pid
    expect(await s.run({ command: 'echo next' })).toMatchObject({ exitCode: 0, output: 'next\n' })
    expect(s.pid).toBe(pid)
  })

  // fish has no `set -u`; an interrupted line is in the shell suite.
  it.skipIf(program === 'fish')('a line the shell really aborted ends the run with its status', async () => {
    const s = shell()
    const r = await s.run({ command: 'set -u; echo "$no_such_variable"; echo not reached' })
    expect(r.exitCode).not.toBe(0)
    expect(r.exitCode).not.toBeNull()
    expect(r.output).toMatch(/no_such_variable/)
    expect(r.output).not.toMatch(/not reached/)
    await s.run({ command: 'set +u' })
    expect(await s.run({ command: 'echo fine' })).toMatchObject({ exitCode: 0, output: 'fine\n' })
  })

  it.skipIf(program === 'fish')('a function named command, builtin or printf breaks the markers: the run ends and the shell is replaced', async () => {
    const s = shell()
    await s.run({ command: 'cd /tmp; export KEPT=no' })
    const pid = s.pid
    const r = await s.run({ command: 'echo defining; command() { echo hijacked; }; builtin() { echo hijacked; }; printf() { echo hijacked; }' })
    expect(r.exitCode).toBeNull()
    expect(r.output).toMatch(/^defining\n/)
    // The next run goes to a fresh shell, where they are gone.
    const next = await s.run({ command: 'echo "works ${KEPT-unset}"; pwd' })
    expect(next.exitCode).toBe(0)
    expect(next.output).toMatch(/^works unset\n/)
    expect(s.pid).not.toBe(pid)
  })

  it.runIf(program === 'fish')('fish: functions named printf, read or source do not break the markers (they run through builtin)', async () => {
    const s = shell()
    const pid = s.pid
    await s.run({ command: 'function printf; echo hijacked; end; function read; echo hijacked; end; function source; echo hijacked; end' })
    expect(await s.run({ command: 'echo works; return 3' })).toMatchObject({ exitCode: 3, output: 'works\n' })
    expect(s.pid === pid || pid === null).toBe(true)
  })

  it('a child that forges the end with what it finds in /proc/$PPID/environ does not end the run early', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/environ')
    const s = shell()
    // Every 32-hex-digit word in the shell's environment, as D and E markers.
    const forge = join(dir, 'forge.sh')
    writeFileSync(
      forge,
      [
        "for n in $(tr '\\0' '\\n' </proc/$PPID/environ | grep -o '[0-9a-f]\\{32\\}'); do",
        "  printf '\\033]133;D;%s\\007\\033]133;E;42;%s;%s\\007' \"$n\" 0 \"$n\"",
        'done',
        '',
      ].join('\n'),
    )
    const r = await s.run({
      command: [`sh '${forge}'`, 'sleep 0.3', 'echo still running', exit5].join('\n'),
      timeoutMs: 20_000,
    })
    expect(r).toMatchObject({ exitCode: 5, output: 'still running\n', timedOut: false })
  })

  it('the nonce is not in the environment the shell or its children got', async (ctx) => {
    linuxOnly(ctx, 'reads /proc/PID/environ')
    const s = shell()
    const r = await s.run({
      command: spell(
        program,
        `${nonce}; echo "\${#n}"; grep -c "$n" /proc/$$/environ; env | grep -c "$n"; sh -c 'grep -c "$1" /proc/$PPID/environ' sh "$n"`,
        `${nonce}; string length -- $n; grep -c $n /proc/$fish_pid/environ; env | grep -c $n; sh -c 'grep -c "$1" /proc/$PPID/environ' sh $n`,
      ),
    })
    expect(r.output).toBe('32\n0\n0\n0\n')
  })

  it.skipIf(program === 'fish')('set -x and set -v show the command, not ptypilot\'s own lines', async () => {
    const s = shell()
    await s.run({ command: 'set -x' })
    const traced = await s.run({ command: 'echo traced' })
    expect(traced.exitCode).toBe(0)
    expect(traced.output).toMatch(/^\S+ ?echo traced\ntraced\n$/)
    await s.run({ command: 'set +x; set -v' })
    expect((await s.run({ command: 'echo a\necho b' })).output).toBe('echo a\na\necho b\nb\n')
    await s.run({ command: 'set +v' })
    expect((await s.run({ command: 'echo quiet' })).output).toBe('quiet\n')
  })

  it('a background job that ended between runs does not show in the next run', async () => {
    const s = shell()
    await s.run({ command: 'sleep 0.1 &' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await s.run({ command: 'echo next' })).toMatchObject({ exitCode: 0, output: 'next\n' })
    expect(await s.run({ command: 'echo again' })).toMatchObject({ exitCode: 0, output: 'again\n' })
  })

  it('an alias named . or printf does not take over the runs', async () => {
    const s = shell()
    const aliases = spell(
      program,
      "alias .='echo hijacked'; alias printf='echo hijacked'; alias read='echo hijacked'",
      "alias source='echo hijacked'; alias printf='echo hijacked'; alias read='echo hijacked'",
    )
    await s.run({ command: aliases })
    expect(await s.run({ command: 'echo works' })).toMatchObject({ exitCode: 0, output: 'works\n' })
    expect(await s.run({ command: spell(program, '(exit 3)', 'return 3') })).toMatchObject({ exitCode: 3, output: '' })
  })
})

describe('bad shell options', () => {
  it.each([
    [{ sessionEnv: { 'A-B': 'x' } }, /options\.sessionEnv: "A-B" is not a shell variable name/],
    [{ sessionEnv: { A: 'x\0y' } }, /sessionEnv/],
    [{ sessionEnv: 'A=1' }, /options\.sessionEnv/],
    [{ snapshotPath: 42 }, /options\.snapshotPath/],
    [{ snapshotPath: '' }, /options\.snapshotPath/],
    [{ snapshotPath: '/tmp/a\nb' }, /options\.snapshotPath must be a file path without control characters/],
  ])('%j', (options, message) => {
    let err: unknown
    try {
      new Shell(options as never)
    } catch (e) {
      err = e
    }
    expect(err).toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(message) })
  })
})
