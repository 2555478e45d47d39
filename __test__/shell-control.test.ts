// The terminal's input belongs to the command and to shell.write(): commands that read the
// terminal themselves (read </dev/tty, read -s, Python's getpass, head -c 5 </dev/tty, a
// byte-by-byte dd) get nothing ptypilot sent, whether nothing is typed (also past the time the
// watchdog probes an idle shell) or input is written, 50 runs in a row. And a command that breaks
// its shell (exec >&-, exec 2>&-, exec 1>file, stty raw, a DEBUG trap) does not break the next
// run. Every case runs in bash, dash, zsh and fish where installed (and the construct exists).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Shell, type ShellResult } from '../index.js'
import { alive, have } from './helpers.js'

const shells = ['bash', 'dash', ...(have('zsh') ? ['zsh'] : []), ...(have('fish') ? ['fish'] : [])]

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptypilot-shell-control-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A command that reads the terminal and writes exactly what it got to a file. */
interface Reader {
  name: string
  /** The command, writing what it read to `file`. */
  command: (file: string) => string
  /** What to write for it, and what the file must then hold. */
  input: string[]
  got: string
  /** Shells that lack the construct. */
  skip?: string[]
  /** Write the input once the command printed this. */
  prompt?: string
}

const readers: Reader[] = [
  { name: 'read x </dev/tty', command: (f) => `read x </dev/tty; printf '%s' "$x" >'${f}'`, input: ['abc\n'], got: 'abc' },
  { name: 'read -s (builtin)', command: (f) => `read -s x; printf '%s' "$x" >'${f}'`, input: ['abc\n'], got: 'abc', skip: ['dash'] },
  // getpass flushes input typed ahead of its prompt (TCSAFLUSH), as at a terminal: written once
  // the prompt shows.
  {
    name: 'Python getpass',
    command: (f) => `python3 -c 'import getpass, sys; open(sys.argv[1], "w").write(getpass.getpass("ready\\n"))' '${f}'`,
    input: ['abc\n'],
    got: 'abc',
    prompt: 'ready\n',
  },
  // head reads bytes, the line end included: five written, five got.
  { name: 'head -c 5 </dev/tty', command: (f) => `head -c 5 </dev/tty >'${f}'`, input: ['abcd\n'], got: 'abcd\n' },
]

/** What the command wrote to `file` ('' when it wrote nothing or never got that far). */
function received(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : ''
}

/** Nothing of ptypilot's own in a run's output: no marker, nonce variable or run line. */
function expectNoControlText(r: ShellResult): void {
  expect(r.output).not.toMatch(/__ptypilot|133;|ptypilot-shell-/)
}

describe.concurrent.each(shells)('%s', (program) => {
  const mine = readers.filter((r) => !r.skip?.includes(program))

  it('commands that read the terminal get nothing when nothing is typed, also past the watchdog probe time', async ({ expect }) => {
    const s = new Shell({ shell: program })
    try {
      // The case that once got the watchdog's probe line: a builtin read of /dev/tty with the
      // command's stdin at its default (/dev/null), idle in the shell's own process for 1.5 s.
      const builtin = await s.run({ command: 'read x </dev/tty; echo "got $x"', timeoutMs: 1500 })
      expect(builtin).toMatchObject({ timedOut: true, exitCode: null })
      expectNoControlText(builtin)
      expect(builtin.output).not.toMatch(/got \S/)
      const pid = s.pid
      for (const reader of mine) {
        const file = join(dir, `idle-${program}-${reader.name.replace(/\W+/g, '-')}`)
        const r = await s.run({ command: reader.command(file), stdin: 'terminal', timeoutMs: 1500 })
        expect(r, reader.name).toMatchObject({ timedOut: true, exitCode: null })
        expect(received(file), reader.name).toBe('')
        expectNoControlText(r)
      }
      // Every byte the terminal delivered in 1.5 s, counted one by one: none.
      const log = join(dir, `dd-${program}`)
      const dd = await s.run({ command: `dd bs=1 </dev/tty >'${log}' 2>/dev/null`, stdin: 'terminal', timeoutMs: 1500 })
      expect(dd.timedOut).toBe(true)
      expect(received(log)).toBe('')
      expect(await s.run({ command: 'echo next' })).toMatchObject({ exitCode: 0, output: 'next\n' })
      expect(s.pid).toBe(pid)
    } finally {
      await s.close()
    }
  })

  // 100 runs, each starting the reader (Python alone takes 0.2-0.4 s to start on a busy machine).
  it.for(mine)('$name gets exactly what write() sent, and nothing when nothing is sent, 50 times in a row', { timeout: 240_000 }, async (reader, { expect }) => {
    const s = new Shell({ shell: program })
    try {
      const file = join(dir, `typed-${program}-${reader.name.replace(/\W+/g, '-')}`)
      for (let i = 0; i < 50; i++) {
        rmSync(file, { force: true })
        const type = () => reader.input.forEach((chunk) => s.write(chunk))
        let seen = ''
        const run = s.run({ command: reader.command(file), stdin: 'terminal', timeoutMs: 20_000 }, (chunk) => {
          seen += chunk
          if (reader.prompt && seen.endsWith(reader.prompt)) type()
        })
        if (!reader.prompt) type()
        const r = await run
        expect(r, `run ${i}`).toMatchObject({ exitCode: 0, timedOut: false })
        expect(received(file), `run ${i}`).toBe(reader.got)
        expectNoControlText(r)
        rmSync(file, { force: true })
        // Twice past the time the watchdog probes a shell idle in the foreground.
        const idle = await s.run({ command: reader.command(file), stdin: 'terminal', timeoutMs: i % 25 === 24 ? 1300 : 50 })
        expect(idle.timedOut, `idle run ${i}`).toBe(true)
        expect(received(file), `idle run ${i}`).toBe('')
      }
    } finally {
      await s.close()
    }
  })

  // fish has no fd-only exec, so no fish command can close or move the shell's descriptors.
  const breakers = program === 'fish' ? [] : ['exec >&-', 'exec 2>&-', `exec 1>'${join(tmpdir(), `ptypilot-moved-${program}`)}'`]

  it.for(breakers)('after `%s` the shell is replaced in its directory; the next run is right', async (breaker, { expect }) => {
    const s = new Shell({ shell: program })
    try {
      const r = await s.run({ command: `cd '${dir}'; echo before; ${breaker}` })
      expect(r).toMatchObject({ exitCode: 0, output: 'before\n' })
      expect(r.warning).toMatch(/the command left the shell's standard (output \(fd 1\)|error \(fd 2\)) no longer its terminal/)
      expect(s.pid).toBeNull() // the broken shell is gone; the next run starts a new one
      const next = await s.run({ command: 'echo hi; pwd; false' })
      expect(next).toEqual({ exitCode: 1, output: `hi\n${dir}\n`, timedOut: false, cancelled: false, truncated: false })
    } finally {
      await s.close()
    }
  })

  it('after `stty -opost -echo raw` the next run is right, in the same shell, with the terminal as before', async ({ expect }) => {
    const s = new Shell({ shell: program })
    try {
      const modes = await s.run({ command: 'stty -g', stdin: 'terminal' })
      const pid = s.pid
      const r = await s.run({ command: 'echo before; stty -opost -echo raw </dev/tty' })
      expect(r).toMatchObject({ exitCode: 0, output: 'before\n' })
      expect(r.warning).toBeUndefined()
      expect(await s.run({ command: 'echo hi; false' })).toMatchObject({ exitCode: 1, output: 'hi\n' })
      expect(await s.run({ command: 'stty -g', stdin: 'terminal' })).toEqual(modes)
      const typed = s.run({ command: 'read x; echo "[$x]"', stdin: 'terminal' })
      s.write('abc\n')
      expect(await typed).toMatchObject({ exitCode: 0 })
      expect((await typed).output).toMatch(/\[abc\]\s*$/)
      expect(s.pid).toBe(pid)
    } finally {
      await s.close()
    }
  })

  it.skipIf(program !== 'bash')("after `trap 'echo x' DEBUG` the trap runs for the command's own commands only", async ({ expect }) => {
    const s = new Shell({ shell: program })
    try {
      expect(await s.run({ command: "trap 'echo x' DEBUG" })).toMatchObject({ exitCode: 0, output: '' })
      // One x before each simple command of the command, as at a terminal; none for ptypilot's.
      expect(await s.run({ command: 'echo hi; false' })).toEqual({
        exitCode: 1,
        output: 'x\nhi\nx\n',
        timedOut: false,
        cancelled: false,
        truncated: false,
      })
      expect(await s.run({ command: 'printf "%s\\n" "$?"; (exit 3)' })).toMatchObject({ exitCode: 3, output: 'x\n0\n' })
      expect(await s.run({ command: 'trap - DEBUG' })).toMatchObject({ exitCode: 0, output: 'x\n' })
      expect(await s.run({ command: 'echo y' })).toMatchObject({ exitCode: 0, output: 'y\n' })
    } finally {
      await s.close()
    }
  })

  it.skipIf(program !== 'fish')('fish: a shell whose prompt is gone is replaced, and says so', async ({ expect }) => {
    const s = new Shell({ shell: program })
    try {
      await s.run({ command: `cd '${dir}'` })
      const pid = s.pid!
      expect(await s.run({ command: 'functions --erase fish_prompt' })).toMatchObject({ exitCode: 0 })
      const next = await s.run({ command: 'echo hi; pwd' })
      expect(next).toMatchObject({ exitCode: 0, output: `hi\n${dir}\n` })
      expect(next.warning).toMatch(/stopped showing its prompt/)
      expect(s.pid).not.toBe(pid)
      expect(alive(pid)).toBe(false)
    } finally {
      await s.close()
    }
  })
})
