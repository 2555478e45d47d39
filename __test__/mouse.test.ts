// session.mouse against real programs: a Python program that enables each
// tracking mode with and without an extended encoding and prints what it
// received (decoded by its own reading of xterm's ctlseqs), a curses program
// that reads clicks through ncurses, vim with `set mouse=a` (a click moves the
// cursor, a drag selects in visual mode) and `less --mouse` (the wheel
// scrolls). A program that did not ask for reports never gets any.
import { describe, it, expect, afterEach, vi } from 'vitest'
import { join } from 'node:path'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { PtySession, parseMouseSequence } from '../index.js'
import { have } from './helpers'

const REPORTER = join(__dirname, 'fixtures', 'mouse-report.py')
const sessions: PtySession[] = []

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => (s.running ? s.terminate({ graceMs: 200 }) : undefined)))
})

function spawn(options: Parameters<typeof PtySession.spawn>[0]): PtySession {
  const s = PtySession.spawn(options)
  sessions.push(s)
  return s
}

/** The reporter with `modes` enabled, once it printed `ready`. */
async function reporter(modes: number[], cols = 80): Promise<PtySession> {
  const s = spawn({ command: 'python3', args: [REPORTER, ...modes.map(String)], cols, rows: 24 })
  await s.waitFor('ready')
  return s
}

/** The lines the reporter printed after `ready`. */
function received(s: PtySession): string[] {
  const text = s.read().text
  return text.slice(text.indexOf('ready') + 'ready'.length).split(/\r?\n/).map((l) => l.trim()).filter(Boolean)
}

/** Waits until the reporter printed `n` lines after `ready`; returns them. */
async function receivedLines(s: PtySession, n: number): Promise<string[]> {
  await vi.waitFor(() => expect(received(s).length).toBeGreaterThanOrEqual(n), { timeout: 5000, interval: 10 })
  return received(s)
}

describe('the mode the program enabled decides the encoding', () => {
  it('normal tracking (1000) with the default encoding: each button, modifier, the wheel', async () => {
    const s = await reporter([1000])
    expect(s.mouse.mode).toEqual({ tracking: 'normal', encoding: 'default' })
    s.mouse.click(9, 4)
    s.mouse.click(0, 0, { button: 'middle' })
    s.mouse.click(79, 23, { button: 'right', modifiers: ['shift', 'alt', 'ctrl'] })
    s.mouse.scroll(5, 5, 2)
    s.mouse.scroll(5, 5, -1, { modifiers: ['ctrl'] })
    // No motion in mode 1000.
    expect(s.mouse.move(3, 3)).toBe(false)
    expect(await receivedLines(s, 9)).toEqual([
      'default press left x=10 y=5',
      'default release none x=10 y=5',
      'default press middle x=1 y=1',
      'default release none x=1 y=1',
      'default press right x=80 y=24 shift alt ctrl',
      'default release none x=80 y=24 shift alt ctrl',
      'default press wheelDown x=6 y=6',
      'default press wheelDown x=6 y=6',
      'default press wheelUp x=6 y=6 ctrl',
    ])
  })

  it('SGR (1006) names the released button and reaches past column 223', async () => {
    const s = await reporter([1000, 1006], 300)
    expect(s.mouse.mode).toEqual({ tracking: 'normal', encoding: 'sgr' })
    s.mouse.click(250, 2, { button: 'right', modifiers: ['shift'] })
    s.mouse.click(299, 23)
    expect(await receivedLines(s, 4)).toEqual([
      'sgr press right x=251 y=3 shift',
      'sgr release right x=251 y=3 shift',
      'sgr press left x=300 y=24',
      'sgr release left x=300 y=24',
    ])
  })

  it('the default encoding stops at column 223: further cells are an error, not wrong bytes', async () => {
    const s = await reporter([1000], 300)
    s.mouse.click(222, 0)
    const err = (() => {
      try {
        s.mouse.click(223, 0)
      } catch (e) {
        return e as Error & { code: string }
      }
    })()
    expect(err?.code).toBe('ERR_INVALID_ARG')
    expect(err?.message).toMatch(/column 223 cannot be reported.*default mouse encoding/)
    s.write('k')
    expect(await receivedLines(s, 3)).toEqual(['default press left x=223 y=1', 'default release none x=223 y=1', 'key 6b'])
  })

  it('urxvt (1015) and UTF-8 (1005) reach past column 223 too', async () => {
    const urxvt = await reporter([1000, 1015], 300)
    expect(urxvt.mouse.mode.encoding).toBe('urxvt')
    urxvt.mouse.click(260, 1, { modifiers: ['alt'] })
    expect(await receivedLines(urxvt, 2)).toEqual(['urxvt press left x=261 y=2 alt', 'urxvt release none x=261 y=2 alt'])
    const utf8 = await reporter([1000, 1005], 300)
    expect(utf8.mouse.mode.encoding).toBe('utf8')
    utf8.mouse.click(260, 1, { button: 'middle' })
    expect(await receivedLines(utf8, 2)).toEqual(['utf8 press middle x=261 y=2', 'utf8 release none x=261 y=2'])
  })

  it('button-event tracking (1002) reports motion only while a button is held', async () => {
    const s = await reporter([1002, 1006])
    expect(s.mouse.move(1, 1)).toBe(false)
    s.mouse.drag(2, 2, 5, 3)
    expect(s.mouse.move(9, 9)).toBe(false)
    expect(await receivedLines(s, 5)).toEqual([
      'sgr press left x=3 y=3',
      'sgr move left x=4 y=3',
      'sgr move left x=5 y=4',
      'sgr move left x=6 y=4',
      'sgr release left x=6 y=4',
    ])
  })

  it('any-event tracking (1003) reports motion with no button held, and down/move/up by hand', async () => {
    const s = await reporter([1003, 1006])
    expect(s.mouse.mode.tracking).toBe('any')
    expect(s.mouse.move(7, 1, { modifiers: ['shift'] })).toBe(true)
    s.mouse.down(7, 1, { button: 'right' })
    expect(s.mouse.held).toBe('right')
    s.mouse.move(8, 1)
    s.mouse.up(8, 1)
    expect(s.mouse.held).toBe(null)
    expect(await receivedLines(s, 4)).toEqual([
      'sgr move none x=8 y=2 shift',
      'sgr press right x=8 y=2',
      'sgr move right x=9 y=2',
      'sgr release right x=9 y=2',
    ])
  })

  it('X10 (9) reports presses only, without modifiers', async () => {
    const s = await reporter([9])
    expect(s.mouse.mode).toEqual({ tracking: 'x10', encoding: 'default' })
    s.mouse.click(3, 4, { modifiers: ['ctrl'] })
    s.write('k')
    expect(await receivedLines(s, 2)).toEqual(['default press left x=4 y=5', 'key 6b'])
  })
})

describe('no report reaches a program that did not ask', () => {
  it('a program without mouse reporting gets ERR_MOUSE_OFF, and not a byte', async () => {
    const s = await reporter([])
    expect(s.mouse.mode).toEqual({ tracking: null, encoding: 'default' })
    for (const act of [
      () => s.mouse.click(1, 1),
      () => s.mouse.move(1, 1),
      () => s.mouse.scroll(1, 1, 3),
      () => s.mouse.drag(1, 1, 4, 4),
      () => s.mouse.down(1, 1),
    ]) {
      expect(act).toThrow(expect.objectContaining({ code: 'ERR_MOUSE_OFF', message: expect.stringMatching(/has not enabled mouse reporting/) }))
    }
    s.write('k')
    expect(await receivedLines(s, 1)).toEqual(['key 6b'])
  })

  it('once the program turns reporting off again, the mouse stops', async () => {
    const s = await reporter([1002, 1006])
    s.mouse.click(0, 0)
    s.write('d')
    await s.waitFor('disabled')
    expect(s.mouse.mode.tracking).toBe(null)
    expect(() => s.mouse.click(0, 0)).toThrow(expect.objectContaining({ code: 'ERR_MOUSE_OFF' }))
    s.write('k')
    expect(await receivedLines(s, 4)).toEqual(['sgr press left x=1 y=1', 'sgr release left x=1 y=1', 'disabled', 'key 6b'])
  })

  it('bad cells and options name the value', async () => {
    const s = await reporter([1000])
    expect(() => s.mouse.click(80, 0)).toThrow(/col must be an integer from 0 to 79 \(the screen has 80 columns\), got number 80/)
    expect(() => s.mouse.click(0, -1)).toThrow(/row must be an integer from 0 to 23/)
    expect(() => s.mouse.click(0, 0, { button: 'fourth' as never })).toThrow(/options.button must be 'left', 'middle', 'right', got string "fourth"/)
    expect(() => s.mouse.click(0, 0, { modifiers: ['super' as never] })).toThrow(/options.modifiers may hold 'shift', 'alt', 'ctrl', got string "super"/)
    expect(() => s.mouse.scroll(0, 0, 0)).toThrow(/lines must be a non-zero integer/)
    expect(() => s.mouse.clickText('nowhere')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(/"nowhere" is not on the screen/) }))
  })
})

describe('mouse reports read back', () => {
  it('parseMouseSequence reads every encoding', () => {
    expect(parseMouseSequence('\x1b[<2;10;5m')).toEqual({
      action: 'release', button: 'right', col: 9, row: 4, shift: false, alt: false, ctrl: false, encoding: 'sgr',
    })
    expect(parseMouseSequence(Buffer.from([0x1b, 0x5b, 0x4d, 0x20 + 16 + 4, 0xff, 0x21]))).toMatchObject({
      action: 'press', button: 'left', col: 222, row: 0, shift: true, ctrl: true, encoding: 'default',
    })
    expect(parseMouseSequence('\x1b[67;300;2M')).toMatchObject({ action: 'move', button: null, col: 299, row: 1, encoding: 'urxvt' })
    expect(parseMouseSequence('\x1b[A')).toBe(null)
    expect(parseMouseSequence(42 as never)).toBe(null)
  })
})

describe.skipIf(!have('python3'))('a curses program', () => {
  it('reads the clicks through ncurses (getmouse)', async () => {
    const program = [
      'import curses',
      'def main(w):',
      '    curses.mousemask(curses.ALL_MOUSE_EVENTS)',
      '    w.addstr(0, 0, "click me")',
      '    w.refresh()',
      '    for n in range(2):',
      '        while w.getch() != curses.KEY_MOUSE:',
      '            pass',
      '        _, x, y, _, state = curses.getmouse()',
      '        button = "left" if state & (curses.BUTTON1_CLICKED | curses.BUTTON1_PRESSED) else "right" if state & (curses.BUTTON3_CLICKED | curses.BUTTON3_PRESSED) else hex(state)',
      '        ctrl = "+ctrl" if state & curses.BUTTON_CTRL else ""',
      '        w.addstr(2 + n, 0, f"{button}{ctrl} at {x},{y}")',
      '        w.refresh()',
      '    w.getch()',
      'curses.wrapper(main)',
    ].join('\n')
    const s = spawn({ command: 'python3', args: ['-c', program] })
    await s.waitFor('click me')
    await vi.waitFor(() => expect(s.mouse.mode.tracking).not.toBe(null))
    s.mouse.click(12, 6)
    await s.waitFor('left at 12,6')
    s.mouse.click(3, 2, { button: 'right', modifiers: ['ctrl'] })
    await s.waitFor('right+ctrl at 3,2')
    expect(s.screen().lines.slice(2, 4)).toEqual(['left at 12,6', 'right+ctrl at 3,2'])
  })
})

describe.skipIf(!have('vim'))('vim with set mouse=a', () => {
  function file(lines: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-mouse-'))
    const path = join(dir, 'text.txt')
    writeFileSync(path, lines.join('\n') + '\n')
    return path
  }

  // vim enables mode 1002 with SGR reports (1006;1000, its terminfo's XM),
  // whatever 'ttymouse' says.
  const vimArgs = ['-u', 'NONE', '-i', 'NONE', '-N', '-n', '--cmd', 'set mouse=a']

  it('a click moves the cursor to that cell; a drag selects in visual mode', async () => {
    const path = file(['alpha beta gamma', 'delta epsilon zeta', 'eta theta iota'])
    const s = spawn({ command: 'vim', args: [...vimArgs, path] })
    await s.waitFor('alpha beta')
    await vi.waitFor(() => expect(s.mouse.mode).toEqual({ tracking: 'button', encoding: 'sgr' }))
    const at = s.mouse.clickText('epsilon')
    expect(at).toEqual({ col: 6, row: 1, text: 'epsilon' })
    await vi.waitFor(() => expect(s.screen().cursor).toMatchObject({ row: 1, col: 6 }))
    // Drag from "theta" to the end of "iota": visual mode, and y yanks exactly that.
    s.mouse.drag(4, 2, 13, 2)
    await s.waitFor('-- VISUAL --')
    s.write('y')
    await vi.waitFor(() => expect(s.screen().lines[23]).not.toContain('VISUAL'))
    s.write(':echo getreg("0")\r')
    await vi.waitFor(() => expect(s.screen().lines[23]).toBe('theta iota'))
  })

  it('the wheel scrolls', async () => {
    const path = file(Array.from({ length: 200 }, (_, i) => `line ${i + 1}`))
    const s = spawn({ command: 'vim', args: [...vimArgs, path] })
    await s.waitFor('line 1')
    await vi.waitFor(() => expect(s.mouse.mode.tracking).not.toBe(null))
    s.mouse.scroll(10, 10, 3)
    await vi.waitFor(() => expect(s.screen().lines[0]).not.toBe('line 1'))
    const top = Number(/line (\d+)/.exec(s.screen().lines[0])![1])
    expect(top).toBeGreaterThan(1)
    s.mouse.scroll(10, 10, -3)
    await vi.waitFor(() => expect(s.screen().lines[0]).toBe('line 1'))
  })
})

describe.skipIf(!have('less'))('less --mouse', () => {
  it('the wheel scrolls forward and back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptypilot-mouse-'))
    const path = join(dir, 'long.txt')
    writeFileSync(path, Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join('\n') + '\n')
    const s = spawn({ command: 'less', args: ['--mouse', '--wheel-lines=2', path], env: { LESSHISTFILE: '-' } })
    await s.waitFor('row 1')
    expect(s.mouse.mode.tracking).not.toBe(null)
    s.mouse.scroll(5, 5, 3)
    // Three steps of two lines each.
    await vi.waitFor(() => expect(s.screen().lines[0]).toBe('row 7'))
    s.mouse.scroll(5, 5, -2)
    await vi.waitFor(() => expect(s.screen().lines[0]).toBe('row 3'))
  })
})
