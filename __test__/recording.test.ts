// Recordings: `record` writes asciicast v2 (output, input, resizes) that
// replay() and asciinema play back to the screen the session showed.
import { describe, it, expect } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PtySession, exec, readRecording, replay, type PtypilotError, type ScreenSnapshot } from '../index.js'
import { have, needs } from './helpers.js'

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'ptypilot-rec-'))
}

/** What a replay must reproduce of a screen. */
function picture(screen: ScreenSnapshot & { attributes?: unknown }) {
  const { text, lines, cursor, cols, rows, altScreen, title, attributes } = screen
  return { text, lines, cursor, cols, rows, altScreen, title, attributes }
}

function thrown(f: () => unknown): PtypilotError {
  try {
    f()
  } catch (err) {
    return err as PtypilotError
  }
  throw new Error('expected a throw')
}

describe.concurrent('recordings', () => {
  it('a vim session replays to the same screen, while it runs and after it ended', async (ctx) => {
    needs(ctx, 'vim')
    const dir = tempDir()
    const cast = join(dir, 'vim.cast')
    await using vim = PtySession.spawn({ command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', 'notes.txt'], cwd: dir, record: cast })
    await vim.waitFor('"notes.txt" [New]')
    vim.write('ifirst line\rsecond line\r\tindented')
    vim.sendKeys('esc')
    await vim.waitFor(/^\s+indented$/m)
    vim.resize(60, 12)
    vim.write(':set number\r')
    await vim.waitFor(/^ {2}3\s+indented$/m)
    await vim.waitForSettle()
    const running = vim.screen({ attributes: true })
    expect(running.altScreen).toBe(true)
    expect(picture(replay(cast).screen({ attributes: true }))).toEqual(picture(running))

    vim.write(':wq\r')
    expect((await vim.exited).exitCode).toBe(0)
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n\tindented\n')
    const { header, events } = readRecording(cast)
    expect(header).toMatchObject({ version: 2, width: 80, height: 24, env: { TERM: 'xterm-256color' } })
    expect(header.command).toBe('vim -u NONE -i NONE -N notes.txt')
    expect(events.filter((e) => e[1] === 'r').map((e) => e[2])).toEqual(['60x12'])
    expect(events.filter((e) => e[1] === 'i').map((e) => e[2]).join('')).toBe('ifirst line\rsecond line\r\tindented\x1b:set number\r:wq\r')
    const times = events.map((e) => e[0])
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    // The output events are the whole output, in order.
    expect(events.filter((e) => e[1] === 'o').map((e) => e[2]).join('')).toBe(vim.read({ raw: true }).text)
    expect(picture(replay(cast).screen({ attributes: true }))).toEqual(picture(vim.screen({ attributes: true })))
  })

  it('until replays the screen of an earlier moment', async () => {
    const cast = join(tempDir(), 'steps.cast')
    const s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo one; sleep 0.3; echo two'], record: cast })
    await s.exited
    const { events } = readRecording(cast)
    const first = events.find((e) => e[2].includes('one'))!
    expect(replay(cast, { until: first[0] }).screen().text).toBe('one')
    expect(replay(cast).screen().text).toBe('one\ntwo')
  })

  it('asciinema plays a recording to the same screen', async (ctx) => {
    if (!have('asciinema')) {
      if (process.env.CI) throw new Error('asciinema is missing (.ci/run installs it)')
      ctx.skip()
    }
    const cast = join(tempDir(), 'colours.cast')
    const s = PtySession.spawn({
      command: 'sh',
      args: ['-c', 'printf "\\033[1;31mred\\033[0m plain\\n\\033[7m sel \\033[0m\\n"; sleep 0.2; printf "\\033[38;2;1;2;3mrgb\\033[0m end"'],
      record: cast,
    })
    await s.exited
    await using player = PtySession.spawn({ command: 'asciinema', args: ['play', '-s', '10', cast] })
    expect((await player.exited).exitCode).toBe(0)
    const played = player.screen({ attributes: true })
    const recorded = s.screen({ attributes: true })
    expect(played.lines).toEqual(recorded.lines)
    expect(played.attributes).toEqual(recorded.attributes)
    expect(played.cursor).toEqual(recorded.cursor)
  })

  it('exec records too, and the file is complete when the exit resolves', async () => {
    const cast = join(tempDir(), 'seq.cast')
    const r = await exec({ command: 'seq', args: ['1', '3000'], record: cast })
    expect(r.exitCode).toBe(0)
    const output = readRecording(cast)
      .events.filter((e) => e[1] === 'o')
      .map((e) => e[2])
      .join('')
    expect(output).toBe(Array.from({ length: 3000 }, (_, i) => `${i + 1}\r\n`).join(''))
  })

  it('a path that cannot be written is ERR_INVALID_ARG and nothing starts', async () => {
    const dir = tempDir()
    const marker = join(dir, 'ran')
    const err = thrown(() => PtySession.spawn({ command: 'touch', args: [marker], record: join(dir, 'missing', 'x.cast') }))
    expect(err.code).toBe('ERR_INVALID_ARG')
    expect(err.message).toContain(join(dir, 'missing', 'x.cast'))
    expect(existsSync(marker)).toBe(false)
    for (const record of ['', 42, 'a\0b']) {
      expect(thrown(() => PtySession.spawn({ command: 'true', record: record as never })).code).toBe('ERR_INVALID_ARG')
    }
    // A program that cannot start leaves no recording behind.
    const cast = join(dir, 'never.cast')
    expect(thrown(() => PtySession.spawn({ command: 'no-such-program-xyz', record: cast })).code).toBe('ERR_SPAWN')
    expect(existsSync(cast)).toBe(false)
  })

  it('malformed recordings are ERR_INVALID_ARG naming the line', () => {
    const dir = tempDir()
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text)
      return join(dir, name)
    }
    const cases: [string, string][] = [
      ['not json', 'line 1'],
      ['{"version": 1, "width": 80, "height": 24}\n', 'line 1'],
      ['{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "ok"]\n[0.2, "o"]\n', 'line 3'],
      ['{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "ok"]\n{\n', 'line 3'],
    ]
    cases.forEach(([text, where], i) => {
      const err = thrown(() => readRecording(file(`bad${i}.cast`, text)))
      expect(err.code).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain(where)
    })
    expect(thrown(() => readRecording(join(dir, 'absent.cast'))).code).toBe('ERR_INVALID_ARG')
    const ok = file('ok.cast', '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "hi"]\n[0.2, "r", "bad"]\n')
    expect(thrown(() => replay(ok)).message).toContain('COLSxROWS')
    expect(thrown(() => replay(42 as never)).code).toBe('ERR_INVALID_ARG')
    expect(thrown(() => replay(ok, { until: 'soon' } as never)).code).toBe('ERR_INVALID_ARG')
    expect(replay(ok, { until: 0.15 }).screen().text).toBe('hi')
  })
})
