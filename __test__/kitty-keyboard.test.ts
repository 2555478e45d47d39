// Kitty-aware sendKeys: a real program that enables the kitty keyboard
// protocol gets its query answered and receives keys encoded as the flags it
// pushed ask; after it pops them, keys are legacy again.
import { describe, it, expect } from 'vitest'
import { fileURLToPath } from 'node:url'
import { PtySession } from '../index.js'
import { have } from './helpers.js'

const script = fileURLToPath(new URL('./fixtures/kitty-keys.py', import.meta.url))
const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex')
const ESC = '\x1b'

/** Sends `keys` and waits for the program to print what it read. */
async function sendAndRead(s: PtySession, keys: string[]): Promise<string> {
  const { cursor } = s.read()
  s.sendKeys(...keys)
  const m = await s.waitFor(/KEY ([0-9a-f]*)\r?\n/, { in: 'output', since: cursor, timeoutMs: 10_000 })
  return Buffer.from(/KEY ([0-9a-f]*)/.exec(m.match)![1], 'hex').toString('latin1')
}

describe.skipIf(!have('python3'))('a program that enables the kitty keyboard protocol', () => {
  it('gets CSI ? u answered and kitty-encoded keys from sendKeys (disambiguate)', async () => {
    const s = PtySession.spawn({ command: 'python3', args: [script, '1'] })
    try {
      await s.waitFor('READY', { in: 'output', timeoutMs: 10_000 })
      expect(s.read().text).toContain(`FLAGS ${hex(`${ESC}[?1u`)}`)
      expect(await sendAndRead(s, ['ctrl+c'])).toBe(`${ESC}[99;5u`)
      expect(await sendAndRead(s, ['shift+enter'])).toBe(`${ESC}[13;2u`)
      expect(await sendAndRead(s, ['alt+x'])).toBe(`${ESC}[120;3u`)
      expect(await sendAndRead(s, ['ctrl+up'])).toBe(`${ESC}[1;5A`)
      expect(await sendAndRead(s, ['a'])).toBe('a')
      expect(await sendAndRead(s, ['enter'])).toBe('\r')
      expect(await sendAndRead(s, ['esc'])).toBe(`${ESC}[27u`)
      // The program popped its flags: a legacy terminal again.
      await s.waitFor('POPPED', { in: 'output', timeoutMs: 10_000 })
      expect(s.read().text).toContain(`POPPED ${hex(`${ESC}[?0u`)}`)
      expect(await sendAndRead(s, ['ctrl+c'])).toBe('\x03')
      expect((await s.exited).exitCode).toBe(0)
    } finally {
      s.kill()
    }
  })

  it('all five flags: every key an escape code with its shifted key, text and release', async () => {
    const s = PtySession.spawn({ command: 'python3', args: [script, '31'] })
    try {
      await s.waitFor('READY', { in: 'output', timeoutMs: 10_000 })
      expect(s.read().text).toContain(`FLAGS ${hex(`${ESC}[?31u`)}`)
      expect(await sendAndRead(s, ['A'])).toBe(`${ESC}[97:65;2;65u${ESC}[97:65;2:3u`)
      expect(await sendAndRead(s, ['ctrl+c'])).toBe(`${ESC}[99;5u${ESC}[99;5:3u`)
      expect(await sendAndRead(s, ['enter'])).toBe(`${ESC}[13u${ESC}[13;1:3u`)
      expect(await sendAndRead(s, ['esc'])).toBe(`${ESC}[27u${ESC}[27;1:3u`)
      await s.waitFor('POPPED', { in: 'output', timeoutMs: 10_000 })
      expect(await sendAndRead(s, ['up'])).toBe(`${ESC}[A`)
      expect((await s.exited).exitCode).toBe(0)
    } finally {
      s.kill()
    }
  })
})
