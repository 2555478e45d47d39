// ptypilot/vitest on real programs (less, vim, a curses menu, a REPL with a
// slow answer), all under describe.concurrent, repeated.
import { describe } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test, formatScreen, type TestSession } from 'ptypilot/vitest'
import type { PtypilotError } from '../index.js'
import { alive, needs } from './helpers.js'

const here = dirname(fileURLToPath(import.meta.url))
const menu = join(here, 'fixtures', 'kit', 'menu.py')

/** Runs of each test in one `npm test`; raise it to hunt for races. */
const repeats = Number(process.env.PTYPILOT_KIT_REPEATS ?? 2)

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'ptypilot-kit-'))
}

async function rejection(p: Promise<unknown>): Promise<PtypilotError> {
  try {
    await p
  } catch (err) {
    return err as PtypilotError
  }
  throw new Error('expected the promise to reject')
}

describe.concurrent('the kit on real programs', { repeats }, () => {
  test('less: pages, searches, quits', async ({ pty, expect }) => {
    const dir = tempDir()
    writeFileSync(join(dir, 'numbers.txt'), Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
    const less = pty.spawn({ command: 'less', args: ['numbers.txt'], cwd: dir, env: { LESS: undefined, LESSHISTFILE: '-' } })
    await expect(less).toShowText(/^numbers\.txt/m)
    expect(less).toMatchScreenSnapshot()
    less.sendKeys('space')
    await expect(less).toShowText(/^line 46$/m)
    await expect(less).not.toShowText(/^line 1$/m)
    less.write('/line 150\r')
    await expect(less).toShowText(/^line 150$/m)
    less.write('q')
    await expect(less).toHaveExited({ code: 0 })
  })

  test('vim: inserts, leaves insert mode, saves', async ({ pty, expect, skip }) => {
    needs({ skip }, 'vim')
    const dir = tempDir()
    const vim = pty.spawn({ command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', 'notes.txt'], cwd: dir })
    await expect(vim).toShowText('"notes.txt" [New]')
    vim.write('ihello from the kit')
    await expect(vim).toShowText('-- INSERT --')
    vim.sendKeys('esc')
    await expect(vim).not.toShowText('-- INSERT --')
    vim.write(':wq\r')
    await expect(vim).toHaveExited({ code: 0 })
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('hello from the kit\n')
  })

  test('a curses menu: the highlighted row follows the keys', async ({ pty, expect }) => {
    const app = pty.spawn({ command: 'python3', args: [menu] })
    await expect(app).toShowText('Pick a fruit:')
    const first = await app.waitForSettle()
    expect(first.lines.slice(2, 5).map((l) => l.trim())).toEqual(['Apple', 'Banana', 'Cherry'])
    const selected = () => {
      const { attributes, lines } = app.screen({ attributes: true })
      return lines.filter((_, row) => attributes[row].some((run) => run.inverse)).map((l) => l.trim())
    }
    expect(selected()).toEqual(['Apple'])
    app.sendKeys('down', 'down', 'up')
    await app.waitForSettle()
    expect(selected()).toEqual(['Banana'])
    app.sendKeys('enter')
    await expect(app).toHaveExited({ code: 0 })
    expect(app.read().text).toContain('chose Banana')
  })

  test('a REPL with a slow answer: the prompt after the answer', async ({ pty, expect }) => {
    const repl = pty.spawn({ command: 'python3', args: ['-q'], env: { PYTHONSTARTUP: undefined, PYTHON_HISTORY: '/dev/null' } })
    await expect(repl).toShowText('>>> ')
    repl.write('import time; time.sleep(0.4); print("slow", 6 * 7)\r')
    const { screen } = await repl.waitFor('>>> ', { since: 'input' })
    expect(screen.text).toContain('slow 42')
    await expect(repl).toShowText(/^slow 42\n>>>$/m)
    repl.sendKeys('ctrl+d')
    await expect(repl).toHaveExited({ code: 0 })
  })
})

describe.concurrent('the fixture', () => {
  let shortDone!: () => void
  const shortEnded = new Promise<void>((resolve) => (shortDone = resolve))
  let shortPid = 0

  test('a test that ends early terminates only its own programs', async ({ pty, onTestFinished }) => {
    const s = pty.spawn({ command: 'sleep', args: ['60'] })
    shortPid = s.pid!
    onTestFinished(() => shortDone())
  })

  test('... while a concurrent test keeps its own', async ({ pty, expect }) => {
    const mine = pty.spawn({ command: 'sleep', args: ['60'] })
    await shortEnded
    await expect.poll(() => alive(shortPid)).toBe(false)
    expect(mine.running).toBe(true)
    expect(alive(mine.pid!)).toBe(true)
    expect(pty.sessions).toEqual([mine])
  })

  test('a wait without a timeout gives up inside the test timeout, with the screen', { timeout: 1500 }, async ({ pty, expect }) => {
    const s = pty.spawn({ command: 'sh', args: ['-c', 'echo one; echo two; sleep 60'] })
    const err = await rejection(s.waitFor('never shown'))
    expect(err.code).toBe('ERR_TIMEOUT')
    expect(err.message).toContain('Screen 80x24, cursor at row 2, col 0:')
    expect(err.message).toContain('   0 │one\n   1 │two\n>  2 │\n     │^\n  rows 3-23 blank')
  })

  test('toShowText failures show the numbered screen and the cursor', async ({ pty, expect }) => {
    const s = pty.spawn({ command: 'sh', args: ['-c', 'printf "alpha\\nbeta> "; sleep 60'] })
    await expect(s).toShowText('beta>')
    const err = await rejection(expect(s).toShowText('gamma', { timeout: 200 }))
    expect(err.message).toContain('The screen did not show the text within 200 ms.')
    expect(err.message).toContain('Expected: "gamma"')
    expect(err.message).toContain('Screen 80x24, cursor at row 1, col 6:\n   0 │alpha\n>  1 │beta>\n     │      ^\n  rows 2-23 blank')
    const gone = await rejection(expect(s).not.toShowText('alpha', { timeout: 200 }))
    expect(gone.message).toContain('The screen still showed the text after 200 ms.')
  })

  test('toHaveExited checks the code and the signal, and .not looks once', async ({ pty, expect }) => {
    const ok = pty.spawn({ command: 'sh', args: ['-c', 'exit 3'] })
    await expect(ok).toHaveExited({ code: 3 })
    const wrong = await rejection(expect(ok).toHaveExited({ code: 0 }))
    expect(wrong.message).toContain('Received: the program exited with code 3')
    const sleeper = pty.spawn({ command: 'sleep', args: ['60'] })
    await expect(sleeper).not.toHaveExited()
    const still = await rejection(expect(sleeper).toHaveExited({ timeout: 100 }))
    expect(still.message).toContain(`Received: pid ${sleeper.pid} still running after 100 ms`)
    sleeper.kill('SIGTERM')
    await expect(sleeper).toHaveExited({ signal: 'SIGTERM' })
  })

  test('toMatchScreenSnapshot stores size, cursor and numbered rows', async ({ pty, expect }) => {
    const s = pty.spawn({ command: 'sh', args: ['-c', 'printf "top\\n\\n  indented"; sleep 60'], cols: 30, rows: 5 })
    await expect(s).toShowText('indented')
    expect(s).toMatchScreenSnapshot()
    expect(s.screen()).toMatchScreenSnapshot('the same from a snapshot object')
  })

  test('toMatchScreenSnapshot with attributes stores the styled runs', async ({ pty, expect }) => {
    const s = pty.spawn({
      command: 'sh',
      args: ['-c', 'printf "\\033[1mMenu\\033[0m\\n  \\033[7m Open \\033[0m\\n   Save \\033[38;2;255;0;0m!\\033[0m"; sleep 60'],
      cols: 20,
      rows: 4,
    })
    await expect(s).toShowText('Save !')
    expect(s).toMatchScreenSnapshot({ attributes: true })
    expect(() => expect(s.screen()).toMatchScreenSnapshot({ attributes: true })).toThrow(/screen\(\{ attributes: true \}\)/)
  })

  test('styled toShowText: the highlighted menu row, a colour, a row', async ({ pty, expect }) => {
    const app = pty.spawn({ command: 'python3', args: [menu] })
    await expect(app).toShowText('Apple', { inverse: true })
    await expect(app).toShowText('Banana', { inverse: false, row: 3 })
    await expect(app).toShowText('Pick a fruit:', { bold: true, row: 0 })
    app.sendKeys('down')
    // Waits for the highlight to move; the plain text was there all along.
    await expect(app).toShowText(/Banana/, { inverse: true })
    await expect(app).not.toShowText('Apple', { inverse: true })
    const err = await rejection(expect(app).toShowText('Cherry', { inverse: true, timeout: 200 }))
    expect(err.message).toContain('The screen did not show the text so within 200 ms.')
    expect(err.message).toContain('Expected: "Cherry" with inverse')
    expect(err.message).toContain('Shown, but not with inverse:\n  row 4, col 3: not inverse')
    const elsewhere = await rejection(expect(app).toShowText('Banana', { row: 2, timeout: 100 }))
    expect(elsewhere.message).toContain('Not shown on row 2.')

    const colours = pty.spawn({ command: 'sh', args: ['-c', 'printf "plain \\033[31mred\\033[0m \\033[38;2;255;128;0morange\\033[0m \\033[1;44mbold on blue\\033[0m"; sleep 60'] })
    await expect(colours).toShowText('red', { fg: 1 })
    await expect(colours).toShowText('orange', { fg: '#FF8000' })
    await expect(colours).toShowText('on blue', { bg: 4, bold: true, fg: null })
    await expect(colours).toShowText('plain', { fg: null, bg: null, bold: false })
    const partly = await rejection(expect(colours).toShowText('red orange', { fg: 1, timeout: 100 }))
    expect(partly.message).toContain('Shown, but not with fg=1:\n  row 0, col 6: fg=default')
    await expect(() => expect(colours).toShowText('red', { fg: 'red' as never })).rejects.toThrow(/options.fg must be a colour: 0-255, '#rrggbb' or null/)
    await expect(() => expect(colours).toShowText('red', { blink: true } as never)).rejects.toThrow(/has no option blink/)
  })

  test('toHaveTitle waits for the title a program sets', async ({ pty, expect }) => {
    const s = pty.spawn({ command: 'sh', args: ['-c', 'printf "\\033]0;starting\\007"; read x; printf "\\033]2;editing notes.txt\\007"; sleep 60'] })
    await expect(s).toHaveTitle('starting')
    await expect(s).not.toHaveTitle(/notes/, { timeout: 100 })
    s.write('\r')
    await expect(s).toHaveTitle(/^editing .*\.txt$/)
    await expect(s).not.toHaveTitle('starting')
    const err = await rejection(expect(s).toHaveTitle('editing', { timeout: 100 }))
    expect(err.message).toContain('The title was not as expected within 100 ms.')
    expect(err.message).toContain('Expected: "editing"\nReceived: "editing notes.txt"')
  })

  test('the matchers reject what is not a session', async ({ expect }) => {
    await expect(expect('text').toShowText('x')).rejects.toThrow(/needs a PtySession/)
    expect(() => expect(42).toMatchScreenSnapshot()).toThrow(/PtySession or a screen snapshot/)
  })
})

describe('formatScreen', () => {
  test('marks the cursor, even when hidden past the text', ({ expect }) => {
    const screen = {
      text: 'a',
      lines: ['a', '', '', ''],
      cursor: { row: 2, col: 1, visible: false },
      cols: 10,
      rows: 4,
      altScreen: true,
      title: '',
      seq: 1,
    }
    expect(formatScreen(screen)).toBe(
      'Screen 10x4, cursor at row 2, col 1 (hidden), alternate screen:\n  0 │a\n  1 │\n> 2 │\n    │ ^\n  3 blank',
    )
  })
})

// Keeps the TestSession type import honest: the fixture's sessions are TestSessions.
export type { TestSession }
