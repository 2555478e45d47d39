// ScreenModel: the screen model without a pty gives what a session gives.
import { describe, it, expect } from 'vitest'
import { ScreenModel, PtySession } from '../index.js'

describe('ScreenModel', () => {
  it('shows what a program printed, with the cursor, title and alternate screen', () => {
    const model = new ScreenModel({ cols: 20, rows: 4 })
    expect(model.write('\x1b]0;demo\x07\x1b[1;31mhello\x1b[0m\r\nworld')).toBe('')
    let s = model.screen()
    expect(s.lines).toEqual(['hello', 'world', '', ''])
    expect(s.text).toBe('hello\nworld')
    expect(s.cursor).toEqual({ row: 1, col: 5, visible: true })
    expect([s.cols, s.rows, s.title, s.altScreen, s.seq]).toEqual([20, 4, 'demo', false, 32])
    model.write('\x1b[?1049h\x1b[?25lfull')
    s = model.screen()
    expect(s.altScreen).toBe(true)
    expect(s.cursor.visible).toBe(false)
    expect(s.lines[1]).toBe('     full')
  })

  it('answers queries in order and takes bytes split anywhere', () => {
    const model = new ScreenModel({ cols: 80, rows: 24 })
    expect(model.write('ab\x1b[5n\x1b[6n\x1b[c')).toBe('\x1b[0n\x1b[1;3R\x1b[?1;2c')
    const bytes = Buffer.from('\x1b[2;3H日本\x1b[6n', 'utf8')
    let replies = ''
    for (const b of bytes) replies += model.write(Uint8Array.of(b))
    expect(replies).toBe('\x1b[2;7R')
    expect(model.screen().lines[1]).toBe('  日本')
  })

  it('resizes as a terminal does', () => {
    const model = new ScreenModel({ cols: 10, rows: 3, scrollback: 10 })
    model.write('1\r\n2\r\n3\r\n4')
    expect(model.screen().lines).toEqual(['2', '3', '4'])
    model.resize(10, 4)
    expect(model.screen().lines).toEqual(['1', '2', '3', '4'])
    model.resize(5, 2)
    expect(model.screen().lines).toEqual(['3', '4'])
  })

  it('equals the screen of a session whose program printed the same bytes', async () => {
    const bytes = '\x1b[2J\x1b[H\x1b(0lqk\x1b(B\r\n\x1b[4hab\x1b[1;2HX\x1b[4l\x1b[5;3r\x1b[5;1H\n\n\x1b[r\x1b[3;1Hend\x1b[K'
    const model = new ScreenModel({ cols: 30, rows: 8 })
    model.write(bytes)
    const session = PtySession.spawn({
      command: 'sh',
      args: ['-c', 'stty raw -echo -opost && printf "%s" "$1"', 'sh', bytes],
      cols: 30,
      rows: 8,
    })
    await session.exited
    const { seq: _a, ...theirs } = session.screen()
    const { seq: _b, ...ours } = model.screen()
    expect(ours).toEqual(theirs)
  })

  it('rejects bad arguments with ERR_INVALID_ARG naming the value', () => {
    const bad: [() => unknown, RegExp][] = [
      [() => new ScreenModel({ cols: 1 }), /options\.cols must be an integer between 2 and 1000, got 1/],
      [() => new ScreenModel({ rows: 2.5 }), /options\.rows must be an integer between 2 and 500, got 2.5/],
      [() => new ScreenModel({ scrollback: -1 }), /options\.scrollback must be an integer/],
      [() => new ScreenModel({ cols: '80' } as never), /options\.cols must be a number, got string "80"/],
      [() => new ScreenModel({ colz: 80 } as never), /unknown option options\.colz/],
      [() => new ScreenModel(5 as never), /options must be an object, got number 5/],
      [() => new ScreenModel().write(5 as never), /write\(\) takes a string or a Uint8Array, got number 5/],
      [() => new ScreenModel().resize(80, 0), /rows must be an integer between 2 and 500, got 0/],
      [() => new ScreenModel().resize('80' as never, 24), /resize\(\) takes two numbers/],
    ]
    for (const [call, message] of bad) {
      expect(call).toThrow(message)
      try {
        call()
      } catch (err) {
        expect((err as { code?: string }).code).toBe('ERR_INVALID_ARG')
      }
    }
  })
})
