// The reading path chosen per runtime (lib/runtime.js): Node reads on the JS
// thread through libuv; Bun and Deno (and PTYPILOT_READING=session) read on
// the session threads only, a path that needs nothing of libuv. Both paths
// are run here under Node, in child processes, with listeners, a flood and a
// typed answer; the runtime suite (`npm run test:runtimes`) runs Bun and Deno.
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { linuxOnly } from './helpers'

const ROOT = join(__dirname, '..')

/**
 * A child Node with PTYPILOT_READING=`mode` (or unset): a session with a
 * text and a raw listener reads `seq 1 200000 | cat`, paused and resumed on
 * the way, then `cat` echoes a typed line; it prints what arrived and how
 * many /dev/ptmx descriptors it held after the write (the JS-thread path
 * watches a duplicate of the master).
 */
function runChild(mode: string | undefined) {
  const script = `
    const fs = require('node:fs')
    const { PtySession } = require(${JSON.stringify(join(ROOT, 'index.js'))})
    const ptmx = () => fs.readdirSync('/proc/self/fd').filter((fd) => { try { return fs.readlinkSync('/proc/self/fd/' + fd) === '/dev/ptmx' } catch { return false } }).length
    ;(async () => {
      let text = '', raw = 0
      const s = new PtySession()
      s.onData((d) => (text += d))
      s.onData((b) => (raw += b.length), { raw: true })
      const done = s.start({ command: 'sh', args: ['-c', 'seq 1 200000 | cat'] })
      s.pause(); await new Promise((r) => setTimeout(r, 50)); s.resume()
      await done
      const lines = text.split('\\r\\n').filter(Boolean)
      const inOrder = lines.every((l, i) => l === String(i + 1))
      const cat = new PtySession()
      let echo = ''
      cat.onData((d) => (echo += d))
      const catDone = cat.start({ command: 'cat' })
      cat.write('ping\\n')
      const held = ptmx()
      while (!echo.includes('ping\\r\\nping')) await new Promise((r) => setTimeout(r, 5))
      cat.sendKeys('ctrl+d')
      await catDone
      console.log(JSON.stringify({ lines: lines.length, inOrder, raw, textBytes: text.length, held }))
    })()
  `
  const env = { ...process.env }
  delete env.PTYPILOT_READING
  if (mode !== undefined) env.PTYPILOT_READING = mode
  const r = spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8', timeout: 60_000 })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout) as { lines: number; inOrder: boolean; raw: number; textBytes: number; held: number }
}

describe('the reading path per runtime', () => {
  it('Node reads on the JS thread; PTYPILOT_READING overrides it', () => {
    const script = `const r = require(${JSON.stringify(join(ROOT, 'lib', 'runtime.js'))}); console.log(r.runtimeName(), r.jsThreadReading())`
    const run = (mode?: string) => {
      const env = { ...process.env }
      delete env.PTYPILOT_READING
      if (mode !== undefined) env.PTYPILOT_READING = mode
      return spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }).stdout.trim()
    }
    expect(run()).toBe('node true')
    expect(run('session')).toBe('node false')
    expect(run('js')).toBe('node true')
  })

  for (const mode of ['session', undefined]) {
    const name = mode === 'session' ? 'the session-thread path (Bun, Deno)' : 'the JS-thread path (Node)'
    it(`${name}: every line of a flood reaches both listeners, in order, and a typed answer comes`, (ctx) => {
      linuxOnly(ctx, 'counts /dev/ptmx descriptors in /proc/self/fd')
      const got = runChild(mode)
      expect(got.lines).toBe(200000)
      expect(got.inOrder).toBe(true)
      expect(got.raw).toBe(got.textBytes)
      // The JS-thread path watches a duplicate of cat's master after the write; the other never does.
      expect(got.held).toBe(mode === 'session' ? 1 : 2)
    })
  }
})
