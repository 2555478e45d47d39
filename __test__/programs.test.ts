// Real interactive programs at 80x24, driven the way an agent or a test
// would: read the screen, type keys, wait, check what the program did.
import { describe, it, expect, vi, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PtySession, type PtyOptions } from '../index.js'
import { have } from './helpers.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A fresh directory that is also `HOME`, so no user configuration applies. */
function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ptypilot-programs-'))
  dirs.push(dir)
  return dir
}

/** Spawns with a clean, UTF-8, configuration-free environment in `home`. */
function spawnIn(home: string, options: PtyOptions): PtySession {
  return PtySession.spawn({
    cwd: home,
    ...options,
    env: {
      HOME: home,
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      LESS: undefined,
      LESSOPEN: undefined,
      LESSHISTFILE: '-',
      PYTHONSTARTUP: undefined,
      GIT_CONFIG_NOSYSTEM: '1',
      HISTFILE: '/dev/null',
      ...options.env,
    },
  })
}

const vimArgs = ['-u', 'NONE', '-i', 'NONE', '-N', '-n']
/** For `vi.waitFor`: programs on a loaded machine can take a while. */
const patient = { timeout: 5000, interval: 20 }

describe.skipIf(!have('vim'))('vim (skipped where vim is not installed)', () => {
  it('opens a file, inserts text and writes it with :wq; the alternate screen is on only while vim runs', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'vim', args: [...vimArgs, 'note.txt'] })
    await s.waitFor('"note.txt"')
    await s.waitForSettle()
    expect(s.screen().altScreen).toBe(true)
    s.sendKeys('i')
    s.write('hello from ptypilot 日本')
    s.sendKeys('esc')
    await s.waitFor(/^hello from ptypilot 日本$/m)
    s.write(':wq')
    s.sendKeys('enter')
    const exit = await s.exited
    expect(exit.exitCode).toBe(0)
    expect(readFileSync(join(home, 'note.txt'), 'utf8')).toBe('hello from ptypilot 日本\n')
    expect(s.screen().altScreen).toBe(false)
  })

  it('arrow keys move the cursor in application cursor mode (DECCKM), which vim turns on', async () => {
    const home = tempHome()
    writeFileSync(join(home, 'lines.txt'), 'first line\nsecond line\nthird line\nfourth line\n')
    const s = spawnIn(home, { command: 'vim', args: [...vimArgs, 'lines.txt'] })
    await s.waitFor('"lines.txt"')
    await s.waitForSettle()
    // vim switched the terminal to application cursor keys (ESC [ ? 1 h).
    expect(s.read({ raw: true }).text).toContain('\x1b[?1h')
    expect(s.screen().cursor).toMatchObject({ row: 0, col: 0 })
    s.sendKeys('down', 'down', 'right', 'right', 'right')
    await vi.waitFor(() => expect(s.screen().cursor).toMatchObject({ row: 2, col: 3 }), patient)
    s.sendKeys('up')
    await vi.waitFor(() => expect(s.screen().cursor).toMatchObject({ row: 1, col: 3 }), patient)
    // The arrows moved the cursor: what is typed lands there.
    s.write('iX')
    await s.waitFor(/^secXond line$/m)
    s.sendKeys('esc')
    s.write(':q!\r')
    expect((await s.exited).exitCode).toBe(0)
  })

  it('redraws to a new size after resize', async () => {
    const home = tempHome()
    writeFileSync(join(home, 'sized.txt'), 'a'.repeat(30) + 'b'.repeat(30) + '\n')
    const s = spawnIn(home, { command: 'vim', args: [...vimArgs, 'sized.txt'] })
    await s.waitFor('"sized.txt"')
    await s.waitForSettle()
    expect(s.screen().lines.slice(0, 2)).toEqual(['a'.repeat(30) + 'b'.repeat(30), '~'])
    s.resize(100, 30)
    // vim fills the new height with `~` rows.
    await vi.waitFor(() => expect(s.screen().lines[28]).toBe('~'), patient)
    const screen = s.screen()
    expect(screen.lines).toHaveLength(30)
    expect([screen.cols, screen.rows]).toEqual([100, 30])
    s.resize(40, 8)
    // ... and wraps the long line at the new width.
    await vi.waitFor(() => {
      const small = s.screen()
      expect(small.lines).toHaveLength(8)
      expect(small.lines.slice(0, 3)).toEqual(['a'.repeat(30) + 'b'.repeat(10), 'b'.repeat(20), '~'])
    }, patient)
    s.write(':q!\r')
    expect((await s.exited).exitCode).toBe(0)
  })
})

describe('less', () => {
  /** The first screen row once less settled after `key`. */
  async function topAfter(s: PtySession, ...keys: string[]): Promise<string> {
    s.sendKeys(...keys)
    return (await s.waitForSettle()).lines[0]
  }

  it('pages with space, pageDown, b, g, G and quits with q', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'seq 1 200 | less', shell: true })
    await s.waitFor(/^23\n:$/m)
    expect(s.screen().lines[0]).toBe('1')
    expect(s.screen().altScreen).toBe(true)
    // 23 lines a page: the bottom row is the prompt.
    expect(await topAfter(s, 'space')).toBe('24')
    expect(await topAfter(s, 'pageDown')).toBe('47')
    expect(await topAfter(s, 'b')).toBe('24')
    expect(await topAfter(s, 'down')).toBe('25')
    expect(await topAfter(s, 'up')).toBe('24')
    expect(await topAfter(s, 'G')).toBe('178')
    expect(s.screen().lines[22]).toBe('200')
    expect(await topAfter(s, 'g')).toBe('1')
    s.sendKeys('q')
    expect((await s.exited).exitCode).toBe(0)
    expect(s.screen().altScreen).toBe(false)
  })

  it('with TERM=rxvt (alternate screen by mode 47 and ESC 7/8) the screen before less comes back', async () => {
    const home = tempHome()
    const s = spawnIn(home, {
      command: 'echo before less; seq 1 200 | less; echo after less; sleep 30',
      shell: 'sh',
      term: 'rxvt',
    })
    await s.waitFor(/^23\n:$/m)
    expect(s.screen().altScreen).toBe(true)
    expect(s.read({ raw: true }).text).toContain('\x1b[?47h')
    s.sendKeys('G')
    await s.waitFor(/^200\n\(END\)$/m)
    s.sendKeys('q')
    const { screen } = await s.waitFor('after less')
    expect(screen.altScreen).toBe(false)
    expect(screen.text).toBe('before less\nafter less')
    s.kill()
  })

  it('redraws to the new size after resize', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'seq 1 200 | less', shell: true })
    await s.waitFor(/^23\n:$/m)
    // less picks up SIGWINCH when it waits for a key; a signal that comes
    // while it is still finishing the first screen can be missed by less.
    await s.waitForSettle()
    s.resize(80, 40)
    await vi.waitFor(() => expect(s.screen().lines.slice(37)).toEqual(['38', '39', ':']), patient)
    expect(s.screen().lines).toHaveLength(40)
    await s.waitForSettle()
    s.resize(30, 10)
    await vi.waitFor(() => expect(s.screen().lines.slice(7)).toEqual(['8', '9', ':']), patient)
    expect(s.screen().lines).toHaveLength(10)
    // Paging now goes by the new page size.
    expect(await topAfter(s, 'space')).toBe('10')
    s.sendKeys('q')
    await s.exited
  })
})

describe('git add --patch', () => {
  it('shows the hunk prompt; y then n stages exactly the first hunk', async () => {
    const home = tempHome()
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
        cwd: home,
        env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
      }).toString()
    const original = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
    git('init', '-q')
    writeFileSync(join(home, 'file.txt'), original.join('\n') + '\n')
    git('add', 'file.txt')
    git('commit', '-qm', 'initial')
    const changed = [...original]
    changed[1] = 'line 2 changed'
    changed[27] = 'line 28 changed'
    writeFileSync(join(home, 'file.txt'), changed.join('\n') + '\n')

    const s = spawnIn(home, { command: 'git', args: ['add', '--patch'], env: { GIT_PAGER: 'cat' } })
    const first = await s.waitFor(/\(1\/2\) Stage this hunk \[y,n,q,a,d,[^\]]*\]\?/)
    expect(first.screen.text).toContain('+line 2 changed')
    expect(first.screen.text).not.toContain('\x1b')
    s.write('y\r')
    const second = await s.waitFor(/\(2\/2\) Stage this hunk \[y,n,q,a,d,[^\]]*\]\?/)
    expect(second.screen.text).toContain('+line 28 changed')
    s.write('n\r')
    expect((await s.exited).exitCode).toBe(0)

    const staged = git('diff', '--cached')
    expect(staged).toContain('+line 2 changed')
    expect(staged).not.toContain('line 28 changed')
    const unstaged = git('diff')
    expect(unstaged).toContain('+line 28 changed')
    expect(unstaged).not.toContain('line 2 changed')
  })
})

describe('python REPL', () => {
  it('evaluates expressions and exits with code 0 on ctrl+d', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'python3', args: ['-q'] })
    await s.waitFor(/^>>>/m)
    s.write('1+1\r')
    // Wait for the next prompt: typed ahead, the text would be echoed by the
    // terminal before Python prints the prompt (as for a person typing ahead).
    await s.waitFor(/^2\n>>>$/m)
    s.write('print("x" * 3, sum(range(5)))\r')
    const { screen } = await s.waitFor(/^xxx 10\n>>>$/m)
    expect(screen.text).toMatch(/^>>> 1\+1\n2\n>>> print\("x" \* 3, sum\(range\(5\)\)\)\nxxx 10\n>>>$/)
    s.sendKeys('ctrl+d')
    const exit = await s.exited
    expect(exit).toMatchObject({ exitCode: 0, signal: null })
  })
})

describe('bash', () => {
  const PS1 = '\\[\\e[1;32m\\]ptypilot\\[\\e[0m\\]:\\[\\e[34m\\]\\W\\[\\e[0m\\]\\$ '

  it('shows a coloured prompt as plain text, without escape codes', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'bash', args: ['--norc', '--noprofile'], env: { PS1 } })
    // `\W` of HOME is `~`; `\$` is `#` for root.
    const prompt = `ptypilot:~${process.getuid?.() === 0 ? '#' : '$'}`
    await s.waitFor(prompt)
    s.write('echo "$((6 * 7))"\r')
    const { screen } = await s.waitFor(/^42\nptypilot:~[#$]$/m)
    expect(screen.text).toBe(`${prompt} echo "$((6 * 7))"\n42\n${prompt}`)
    expect(screen.text).not.toMatch(/\x1b|\[\d+(;\d+)*m/)
    // The raw output had the colours.
    expect(s.read({ raw: true }).text).toContain('\x1b[1;32mptypilot')
    s.write('exit\r')
    expect((await s.exited).exitCode).toBe(0)
  })

  it('up recalls history (readline keeps normal cursor mode)', async () => {
    const home = tempHome()
    const s = spawnIn(home, { command: 'bash', args: ['--norc', '--noprofile'], env: { PS1: '$ ' } })
    await s.waitFor('$')
    s.write('echo first-command\r')
    await s.waitFor(/^first-command$/m)
    s.write('echo second\r')
    await s.waitFor(/^second$/m)
    expect(s.read({ raw: true }).text).not.toContain('\x1b[?1h')
    s.sendKeys('up', 'up')
    await s.waitFor(/^\$ echo first-command$/m)
    s.sendKeys('enter')
    await vi.waitFor(() => expect(s.screen().text.match(/^first-command$/gm)).toHaveLength(2), patient)
    s.write('exit\r')
    await s.exited
  })
})

describe('keys as programs receive them', () => {
  // Prints what each read returned; turns application cursor mode on after
  // `a` and off after `b`.
  const keyEcho = `
import os, sys, tty
tty.setraw(0)
os.write(1, b'ready\\r\\n')
while True:
    data = os.read(0, 64)
    os.write(1, (repr(data) + '\\r\\n').encode())
    if data == b'a':
        os.write(1, b'\\x1b[?1happ\\r\\n')
    if data == b'b':
        os.write(1, b'\\x1b[?1lnormal\\r\\n')
    if data == b'q':
        break
`

  it('arrows are CSI in normal mode and SS3 after the program turned on DECCKM', async () => {
    const s = PtySession.spawn({ command: 'python3', args: ['-c', keyEcho] })
    await s.waitFor('ready')
    s.sendKeys('up')
    await s.waitFor("b'\\x1b[A'")
    s.write('a')
    await s.waitFor(/^app$/m)
    s.sendKeys('up')
    await s.waitFor("b'\\x1bOA'")
    s.sendKeys('home')
    await s.waitFor("b'\\x1bOH'")
    s.write('b')
    await s.waitFor(/^normal$/m)
    s.sendKeys('left')
    await s.waitFor("b'\\x1b[D'")
    // ctrl+c is a byte like any other in raw mode.
    s.sendKeys('ctrl+c')
    await s.waitFor("b'\\x03'")
    s.sendKeys('q')
    expect((await s.exited).exitCode).toBe(0)
  })
})

describe('terminal queries', () => {
  // Asks before drawing anything, then again after moving; reads each reply
  // in raw mode with a timeout, then asks for the device attributes.
  const query = `
import os, sys, tty, termios, select
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
def ask(question, end):
    os.write(1, question)
    reply = b''
    while not reply.endswith(end):
        ready, _, _ = select.select([fd], [], [], 2)
        if not ready:
            return 'timeout'
        reply += os.read(fd, 64)
    return reply.decode()
first = ask(b'\\x1b[6n', b'R')
os.write(1, b'\\x1b[5;10Hx')
second = ask(b'\\x1b[6n', b'R')
da1 = ask(b'\\x1b[c', b'c')
sync = ask(b'\\x1b[?2026$p', b'y')
blink = ask(b'\\x1b[?12$p', b'y')
termios.tcsetattr(fd, termios.TCSADRAIN, old)
print()
print('first', first[2:-1], 'second', second[2:-1], 'da1', repr(da1))
print('modes', sync[3:-2], blink[3:-2])
`

  it('a program that asks for the cursor position before drawing gets it at once; DA1 and DECRQM too', async () => {
    const s = PtySession.spawn({ command: 'python3', args: ['-c', query] })
    // A query left unanswered would print `timeout` after 2 s.
    expect((await s.exited).exitCode).toBe(0)
    expect(s.screen().text.split('\n').slice(-2)).toEqual([
      "first 1;1 second 5;11 da1 '\\x1b[?1;2c'",
      'modes 2026;2 12;0',
    ])
  })
})
