// encodeKeys: key names to the bytes xterm sends, in both cursor-key modes.
import { describe, it, expect } from 'vitest'
import { encodeKeys } from '../index.js'

const ESC = '\x1b'

function codeOf(fn: () => unknown): { code: unknown; message: string } {
  try {
    fn()
  } catch (err) {
    const e = err as { code?: unknown; message: string }
    expect(err).toBeInstanceOf(Error)
    return { code: e.code, message: e.message }
  }
  throw new Error('expected a throw')
}

describe('arrows in normal cursor mode (CSI)', () => {
  it.each([
    ['up', `${ESC}[A`],
    ['down', `${ESC}[B`],
    ['right', `${ESC}[C`],
    ['left', `${ESC}[D`],
    ['home', `${ESC}[H`],
    ['end', `${ESC}[F`],
  ])('%s', (key, bytes) => {
    expect(encodeKeys([key])).toBe(bytes)
    expect(encodeKeys([key], { applicationCursor: false })).toBe(bytes)
  })
})

describe('arrows in application cursor mode (DECCKM, SS3)', () => {
  it.each([
    ['up', `${ESC}OA`],
    ['down', `${ESC}OB`],
    ['right', `${ESC}OC`],
    ['left', `${ESC}OD`],
    ['home', `${ESC}OH`],
    ['end', `${ESC}OF`],
  ])('%s', (key, bytes) => {
    expect(encodeKeys([key], { applicationCursor: true })).toBe(bytes)
  })

  it('leaves keys outside the cursor group alone', () => {
    expect(encodeKeys(['enter', 'pageDown', 'f5'], { applicationCursor: true })).toBe(`\r${ESC}[6~${ESC}[15~`)
  })
})

describe('named keys', () => {
  it.each([
    ['enter', '\r'],
    ['tab', '\t'],
    ['esc', ESC],
    ['backspace', '\x7f'],
    ['delete', `${ESC}[3~`],
    ['insert', `${ESC}[2~`],
    ['pageUp', `${ESC}[5~`],
    ['pageDown', `${ESC}[6~`],
    ['page_down', `${ESC}[6~`],
    ['PGDN', `${ESC}[6~`],
    ['space', ' '],
    ['f1', `${ESC}OP`],
    ['f4', `${ESC}OS`],
    ['f5', `${ESC}[15~`],
    ['f12', `${ESC}[24~`],
  ])('%s', (key, bytes) => {
    expect(encodeKeys([key])).toBe(bytes)
  })

  it('sends single characters as themselves and concatenates', () => {
    expect(encodeKeys(['a', 'Q', '/', 'é', 'enter'])).toBe('aQ/é\r')
    expect(encodeKeys([])).toBe('')
  })
})

describe('modifiers', () => {
  it.each([
    ['ctrl+c', '\x03'],
    ['CTRL+C', '\x03'],
    ['ctrl+a', '\x01'],
    ['ctrl+z', '\x1a'],
    ['ctrl+space', '\x00'],
    ['ctrl+[', ESC],
    ['ctrl+]', '\x1d'],
    ['C-x', '\x18'],
    ['alt+x', `${ESC}x`],
    ['alt+enter', `${ESC}\r`],
    ['M-f', `${ESC}f`],
    ['ctrl+alt+c', `${ESC}\x03`],
    ['shift+tab', `${ESC}[Z`],
    ['shift+a', 'A'],
    ['ctrl+up', `${ESC}[1;5A`],
    ['shift+left', `${ESC}[1;2D`],
    ['alt+right', `${ESC}[1;3C`],
    ['ctrl+shift+left', `${ESC}[1;6D`],
    ['shift+ctrl+left', `${ESC}[1;6D`],
    ['ctrl+alt+shift+down', `${ESC}[1;8B`],
    ['shift+f5', `${ESC}[15;2~`],
    ['ctrl+f1', `${ESC}[1;5P`],
    ['alt+delete', `${ESC}[3;3~`],
  ])('%s', (key, bytes) => {
    expect(encodeKeys([key])).toBe(bytes)
  })

  it('uses the CSI 1;m form for modified arrows in application cursor mode too', () => {
    expect(encodeKeys(['ctrl+up', 'up'], { applicationCursor: true })).toBe(`${ESC}[1;5A${ESC}OA`)
  })
})

describe('errors', () => {
  it('rejects an unknown key with ERR_INVALID_ARG naming it', () => {
    const { code, message } = codeOf(() => encodeKeys(['up', 'pagedownn']))
    expect(code).toBe('ERR_INVALID_ARG')
    expect(message).toMatch(/^keys\[1\]: unknown key "pagedownn"; accepted: /)
    expect(message).toContain('pageDown')
  })

  it('rejects combinations xterm cannot send', () => {
    for (const key of ['shift+enter', 'ctrl+1', 'ctrl+foo', 'hyper+x']) {
      const { code, message } = codeOf(() => encodeKeys([key]))
      expect(code, key).toBe('ERR_INVALID_ARG')
      expect(message, key).toContain(`"${key}"`)
    }
  })

  it('rejects arguments of the wrong type with ERR_INVALID_ARG', () => {
    const bad: Array<() => unknown> = [
      () => encodeKeys('ctrl+c' as unknown as string[]),
      () => encodeKeys(undefined as unknown as string[]),
      () => encodeKeys([1] as unknown as string[]),
      () => encodeKeys(['up'], 'app' as never),
      () => encodeKeys(['up'], { applicationCursor: 1 } as never),
      () => encodeKeys(['up'], { appCursor: true } as never),
    ]
    for (const fn of bad) {
      expect(codeOf(fn).code).toBe('ERR_INVALID_ARG')
    }
    expect(codeOf(bad[0]).message).toBe('keys must be an array of key names, got string "ctrl+c"')
    expect(codeOf(bad[2]).message).toBe('keys[0] must be a key name string, got number 1')
  })
})
