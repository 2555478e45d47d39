// Waits that start at a point (`since`) and waits that can be aborted
// (`signal`), against real programs.
import { describe, it, expect } from 'vitest'
import { PtySession, type PtypilotError } from '../index.js'

/** Python's REPL without a startup file or history, quiet banner. */
function python() {
  return PtySession.spawn({ command: 'python3', args: ['-q'], env: { PYTHONSTARTUP: undefined, PYTHON_HISTORY: '/dev/null' } })
}

async function rejection(p: Promise<unknown>): Promise<PtypilotError> {
  try {
    await p
  } catch (err) {
    return err as PtypilotError
  }
  throw new Error('expected the promise to reject')
}

describe.concurrent('waitFor since', () => {
  it("since: 'input' waits for the prompt after a slow answer, not the stale one", async () => {
    await using s = python()
    await s.waitFor('>>> ')
    s.write('import time; time.sleep(0.5); print("answer", 6 * 7)\r')
    // The old prompt is still on the screen: a plain wait returns before the answer.
    const stale = await s.waitFor('>>> ')
    expect(stale.screen.text).not.toContain('answer 42')
    const fresh = await s.waitFor('>>> ', { since: 'input' })
    expect(fresh.screen.text).toContain('answer 42')
    expect(fresh.screen.lines[fresh.screen.cursor.row]).toBe('>>>')
    // Again, with sendKeys as the input.
    s.write('time.sleep(0.3); print("second")')
    s.sendKeys('enter')
    const next = await s.waitFor('>>> ', { since: 'input' })
    expect(next.screen.text).toMatch(/second\n>>>$/)
  })

  it('since a read() cursor: only output after it can match', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    s.write('apple\r')
    await s.waitFor('apple\napple', { in: 'output' })
    const { cursor } = s.read()
    s.write('banana\r')
    const err = await rejection(s.waitFor('apple', { since: cursor, timeoutMs: 300 }))
    expect(err.code).toBe('ERR_TIMEOUT')
    expect(err.message).toContain(`after output position ${cursor}`)
    const { match } = await s.waitFor(/banana\nbanana/, { since: cursor })
    expect(match).toBe('banana\nbanana')
  })

  it('since a screen seq on the screen: only a screen changed after it is looked at', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    s.write('apple\r')
    const shown = await s.waitFor('apple\napple')
    const seq = shown.screen.seq
    // 'apple' is on the screen, but nothing changed it since `seq`.
    const err = await rejection(s.waitFor('apple', { since: seq, in: 'screen', timeoutMs: 300 }))
    expect(err.code).toBe('ERR_TIMEOUT')
    s.write('x')
    const after = await s.waitFor('apple', { since: seq, in: 'screen' })
    expect(after.screen.seq).toBeGreaterThan(seq)
    expect(after.screen.text).toBe('apple\napple\nx')
  })

  it('the screen returned with a match in the output shows the text that matched', async () => {
    // Each answer ends with a prompt written in two pieces, so output often
    // arrives while a wait looks: a screen taken before the output was read
    // lacked the end of the prompt that matched (17 and 25 waits of 1000 in
    // two runs here before the fix).
    const rounds = 1000
    const code = [
      'import sys, time',
      `for i in range(${rounds}):`,
      '    sys.stdin.readline()',
      "    sys.stdout.write('got ' + str(i) + '\\r\\n#>'); sys.stdout.flush()",
      '    time.sleep(0.0002)',
      "    sys.stdout.write('> '); sys.stdout.flush()",
    ].join('\n')
    await using s = PtySession.spawn({ command: 'python3', args: ['-c', code] })
    const stale: string[] = []
    for (let i = 0; i < rounds; i++) {
      s.write('x\r')
      const { match, screen } = await s.waitFor('#>> ', { since: 'input' })
      expect(match).toBe('#>> ')
      if (!screen.text.endsWith(`got ${i}\n#>>`)) stale.push(`${i}: ${JSON.stringify(screen.text.slice(-20))}`)
    }
    expect(stale).toEqual([])
  })

  it("since: 'input' before any input counts from the start", async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo ready; sleep 5'] })
    const { match } = await s.waitFor('ready', { since: 'input' })
    expect(match).toBe('ready')
  })

  it('paste moves the input point', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    s.paste('one\n')
    await s.waitFor('one\none', { in: 'output' })
    s.paste('two\n')
    const err = await rejection(s.waitFor('one', { since: 'input', timeoutMs: 300 }))
    expect(err.code).toBe('ERR_TIMEOUT')
    await s.waitFor('two\ntwo', { since: 'input' })
  })

  it('screen().seq and read().cursor are one scale, multibyte and invalid bytes included', async () => {
    const s = PtySession.spawn({ command: 'sh', args: ['-c', "printf 'caf\\303'; sleep 0.05; printf '\\251 \\360\\237\\230\\200 \\377 end\\n'"] })
    await s.exited
    const read = s.read({ raw: true })
    expect(read.text).toContain('café 😀 \ufffd end')
    expect(s.screen().seq).toBe(read.cursor)
    expect(read.cursor).toBe(Buffer.byteLength(read.text))
  })

  it('rejects bad points and signals with ERR_INVALID_ARG', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    s.write('abc\r')
    const { screen } = await s.waitFor('abc\nabc')
    for (const since of [-1, 1.5, 'output', null, Number.NaN]) {
      const err = await rejection(s.waitFor('abc', { since: since as never }))
      expect(err.code).toBe('ERR_INVALID_ARG')
      expect(err.message).toContain('options.since')
    }
    const future = await rejection(s.waitFor('abc', { since: screen.seq + 1000 }))
    expect(future.code).toBe('ERR_INVALID_ARG')
    expect(future.message).toContain(`at most ${screen.seq}`)
    const badSignal = await rejection(s.waitFor('abc', { signal: {} as AbortSignal }))
    expect(badSignal.code).toBe('ERR_INVALID_ARG')
    const badSettle = await rejection(s.waitForSettle({ signal: 'no' as never }))
    expect(badSettle.code).toBe('ERR_INVALID_ARG')
  })
})

describe.concurrent('waits take an AbortSignal', () => {
  it('aborting a waitFor rejects ERR_ABORTED with the screen', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo waiting here; sleep 30'] })
    await s.waitFor('waiting here')
    const controller = new AbortController()
    const pending = s.waitFor('never shown', { signal: controller.signal, timeoutMs: 60_000 })
    setTimeout(() => controller.abort(), 50)
    const err = await rejection(pending)
    expect(err.code).toBe('ERR_ABORTED')
    expect(err.message).toContain('waiting here')
    expect(err.screen?.lines[0]).toBe('waiting here')
    expect(s.running).toBe(true)
  })

  it('an already aborted signal rejects at once, also in the output', async () => {
    await using s = PtySession.spawn({ command: 'sleep', args: ['30'] })
    const err = await rejection(s.waitFor('x', { in: 'output', signal: AbortSignal.abort(), timeoutMs: 60_000 }))
    expect(err.code).toBe('ERR_ABORTED')
  })

  it('aborting waitForSettle on a screen that never settles rejects ERR_ABORTED', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'while :; do date +%N; sleep 0.01; done'] })
    const controller = new AbortController()
    const pending = s.waitForSettle({ quietMs: 500, timeoutMs: 60_000, signal: controller.signal })
    setTimeout(() => controller.abort(), 100)
    const err = await rejection(pending)
    expect(err.code).toBe('ERR_ABORTED')
    expect(err.screen?.text).toMatch(/^\d+$/m)
  })

  it('a signal that never aborts changes nothing', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 0.2; echo late'] })
    const { signal } = new AbortController()
    await expect(s.waitFor('late', { signal })).resolves.toMatchObject({ match: 'late' })
    const settled = await s.waitForSettle({ signal })
    expect(settled.settled).toBe(true)
  })
})
