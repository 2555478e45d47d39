// Whether a program waits for input, on real programs, each over at least 20
// observations: prompts of every kind are seen with the kind the terminal's
// modes give; silent work, a server waiting on its socket, a pipe from a
// sibling and typed-ahead input never count as waiting. Also: the reason
// every wait reports, the settle that ends on input, input written with echo
// off kept out of read() and the recording, and toBeWaitingForInput.
import { describe, it, expect } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PtySession, readRecording, type InputKind, type PtypilotError } from '../index.js'
import { test as kit } from 'ptypilot/vitest'
import { gitEnv, needs } from './helpers.js'

/** Observations of each program. */
const ROUNDS = 20

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'ptypilot-input-'))
}

/**
 * Runs `rounds` prompts: waits for the program to wait for input (after the
 * last input), checks the kind and that the screen shows `shows(i)`, then
 * answers with `answer(i)`.
 */
async function prompts(
  s: PtySession,
  kind: InputKind,
  shows: (i: number) => string | RegExp,
  answer: (i: number) => string,
  rounds = ROUNDS,
) {
  const seen: string[] = []
  for (let i = 0; i < rounds; i++) {
    const wait = await s.waitForInput({ since: 'input', timeoutMs: 10000 })
    expect(wait.reason, wait.screen.text).toBe('input')
    expect(wait.state).toMatchObject({ waiting: true, kind, how: 'kernel' })
    expect(wait.state.pid).toBeGreaterThan(0)
    expect(typeof wait.state.since).toBe('number')
    const want = shows(i)
    if (typeof want === 'string') expect(wait.screen.text).toContain(want)
    else expect(wait.screen.text).toMatch(want)
    expect(s.inputState()).toMatchObject({ waiting: true, kind })
    seen.push(wait.state.kind!)
    s.write(answer(i))
  }
  expect(seen).toEqual(Array(rounds).fill(kind))
}

/** Looks `ROUNDS` times, each after waiting up to 100 ms for input: never waiting. */
async function neverWaits(s: PtySession) {
  const states = []
  for (let i = 0; i < ROUNDS; i++) {
    const wait = await s.waitForInput({ timeoutMs: 100 })
    expect(wait.reason, wait.screen.text).toBe('timeout')
    states.push(wait.state, s.inputState())
  }
  expect(states.filter((st) => st.waiting)).toEqual([])
  expect(states.every((st) => st.how === 'kernel')).toBe(true)
}

describe.concurrent('programs waiting for input are seen, with their kind', () => {
  it('python input() waits for a line', async () => {
    await using s = PtySession.spawn({
      command: 'python3',
      args: ['-c', `for i in range(${ROUNDS}): input(f'question {i}? ')`],
    })
    await prompts(s, 'line', (i) => `question ${i}?`, (i) => `answer ${i}\r`)
    expect((await s.exited).exitCode).toBe(0)
  })

  it('getpass waits for a password, which is kept out of read() and the recording', async () => {
    const cast = join(tempDir(), 'getpass.cast')
    await using s = PtySession.spawn({
      command: 'python3',
      args: ['-c', `import getpass\nfor i in range(${ROUNDS}): print('length', len(getpass.getpass(f'Password {i}: ')))`],
      record: cast,
    })
    await prompts(s, 'password', (i) => `Password ${i}:`, (i) => `hunter${i}-s3cret\r`)
    expect((await s.exited).exitCode).toBe(0)
    // Each answer was read: its length came back.
    expect(s.read().text.match(/length 1\d/g)).toHaveLength(ROUNDS)
    expect(s.read().text).not.toContain('s3cret')
    const { events } = readRecording(cast)
    expect(events.filter((e) => e[1] === 'i')).toEqual([])
    expect(readFileSync(cast, 'utf8')).not.toContain('s3cret')
  })

  it('bash read -s waits for a password; write reports it hidden', async () => {
    await using s = PtySession.spawn({
      command: 'bash',
      args: ['--norc', '-c', `for i in $(seq 1 ${ROUNDS}); do read -s -p "pin $i: " x; echo " got \${#x}"; done`],
    })
    const hidden: boolean[] = []
    for (let i = 1; i <= ROUNDS; i++) {
      const wait = await s.waitForInput({ since: 'input', timeoutMs: 10000 })
      expect(wait.state).toMatchObject({ waiting: true, kind: 'password', program: 'bash' })
      expect(wait.screen.text).toContain(`pin ${i}:`)
      hidden.push(s.write(`1234-${i}\r`).hidden)
    }
    expect(hidden).toEqual(Array(ROUNDS).fill(true))
    expect((await s.exited).exitCode).toBe(0)
    expect(s.read().text).not.toContain('1234-')
  })

  it("git add -p's prompt waits for a line", async () => {
    const dir = tempDir()
    const env = gitEnv(dir)
    const git = (...args: string[]) => PtySession.spawn({ command: 'git', args, cwd: dir, env }).exited
    await git('init', '-q')
    // ROUNDS hunks far enough apart to stay separate.
    const lines = Array.from({ length: ROUNDS * 10 }, (_, i) => `line ${i}`)
    writeFileSync(join(dir, 'notes.txt'), lines.join('\n') + '\n')
    await git('add', 'notes.txt')
    expect((await git('commit', '-qm', 'first')).exitCode).toBe(0)
    for (let i = 0; i < ROUNDS; i++) lines[i * 10 + 5] = `line ${i * 10 + 5}, changed`
    writeFileSync(join(dir, 'notes.txt'), lines.join('\n') + '\n')
    await using s = PtySession.spawn({ command: 'git', args: ['add', '-p'], cwd: dir, env: { ...env, GIT_PAGER: 'cat' } })
    await prompts(s, 'line', () => /Stage this hunk \[[^\]]*\]\?$/, (i) => (i % 2 === 0 ? 'y\r' : 'n\r'))
    expect((await s.exited).exitCode).toBe(0)
  })

  it('cat reading the terminal waits for a line', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    await prompts(s, 'line', (i) => (i === 0 ? '' : `echoed ${i - 1}`), (i) => `echoed ${i}\r`)
    const last = await s.waitForInput({ since: 'input' })
    expect(last.screen.text.split('\n').slice(-2)).toEqual([`echoed ${ROUNDS - 1}`, `echoed ${ROUNDS - 1}`])
  })

  it('the Python REPL waits for keys (its line editing runs the terminal raw)', async () => {
    await using s = PtySession.spawn({ command: 'python3', args: ['-q'] })
    await prompts(s, 'key', (i) => (i === 0 ? '>>>' : `${1000 + i - 1}`), (i) => `${1000 + i}\r`)
  })

  it('the Node REPL waits for keys, in epoll', async () => {
    // No history file: its write after each line would run while the REPL
    // already listens to the terminal again (an event loop waits for input
    // while a callback is pending), and it is no place for test input.
    await using s = PtySession.spawn({ command: 'node', args: ['--no-warnings'], env: { NODE_NO_READLINE: undefined, NODE_REPL_HISTORY: '' } })
    await prompts(s, 'key', (i) => (i === 0 ? '>' : `${2000 + i - 1}`), (i) => `${2000 + i}\r`)
  })

  it('vim waits for keys', async (ctx) => {
    needs(ctx, 'vim')
    const dir = tempDir()
    await using s = PtySession.spawn({ command: 'vim', args: ['-u', 'NONE', '-i', 'NONE', '-N', 'notes.txt'], cwd: dir })
    await prompts(s, 'key', (i) => (i === 0 ? 'notes.txt' : `word${i - 1}`), (i) => `:call setline(${i + 1}, 'word${i}')\r`)
    s.write(':wq\r')
    expect((await s.exited).exitCode).toBe(0)
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toContain(`word${ROUNDS - 1}`)
  })

  it('less waits for keys', async () => {
    const dir = tempDir()
    const file = join(dir, 'long.txt')
    writeFileSync(file, Array.from({ length: 2000 }, (_, i) => `row ${i}`).join('\n') + '\n')
    await using s = PtySession.spawn({ command: 'less', args: [file], env: { LESS: undefined } })
    // Each page down shows the next page: row 23*i... as the top row.
    await prompts(s, 'key', (i) => new RegExp(`^row ${i * 23}$`, 'm'), () => ' ')
  })
})

describe.concurrent('programs that are not waiting for input are never reported waiting', () => {
  it('sleep 3', async () => {
    await using s = PtySession.spawn({ command: 'sleep', args: ['3'] })
    await neverWaits(s)
  })

  it('a busy loop', async () => {
    await using s = PtySession.spawn({ command: 'python3', args: ['-c', 'while True: pass'] })
    await neverWaits(s)
  })

  it('python3 -m http.server, waiting on its socket', async () => {
    await using s = PtySession.spawn({ command: 'python3', args: ['-m', 'http.server', '0', '--bind', '127.0.0.1'], cwd: tempDir() })
    await s.waitFor('Serving HTTP')
    await neverWaits(s)
  })

  it('a process blocked on a pipe from its sibling', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 5 | cat'] })
    await neverWaits(s)
  })

  it('input typed ahead while the program works is read without it ever waiting', async () => {
    // Each round: the program says it is ready, then works (polls for a file)
    // until the test lets it go on, then reads a line, which was typed
    // during the work. Only its last read, with nothing typed ahead, waits.
    const dir = tempDir()
    await using s = PtySession.spawn({
      command: 'python3',
      args: [
        '-c',
        `import os, time\nfor i in range(${ROUNDS}):\n  print(f'ready {i}', flush=True)\n  while not os.path.exists(f'go{i}'): time.sleep(0.005)\n  print('got', input())\ninput('last? ')`,
      ],
      cwd: dir,
    })
    for (let i = 0; i < ROUNDS; i++) {
      await s.waitFor(`ready ${i}`)
      s.write(`typed ${i}\r`)
      expect(s.inputState().waiting).toBe(false)
      const wait = await s.waitForInput({ since: 'input', timeoutMs: 100 })
      expect(wait).toMatchObject({ reason: 'timeout', state: { waiting: false, how: 'kernel' } })
      writeFileSync(join(dir, `go${i}`), '')
      await s.waitFor(`got typed ${i}`)
    }
    const last = await s.waitForInput({ since: 'input', timeoutMs: 10000 })
    expect(last.state).toMatchObject({ waiting: true, kind: 'line' })
    expect(last.screen.text).toContain('last?')
  })
})

describe.concurrent('every wait says why it ended', () => {
  it('waitForSettle ends at once on input, else after quietMs of quiet', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 0.3; printf "name? "; read x; sleep 5'] })
    const started = Date.now()
    // A quiet period longer than the test's timeout: only the input wait can end it.
    const settled = await s.waitForSettle({ quietMs: 60000, timeoutMs: 20000 })
    expect(settled).toMatchObject({ settled: true, reason: 'input', input: { waiting: true, kind: 'line' } })
    expect(settled.text).toBe('name?')
    expect(Date.now() - started).toBeLessThan(15000)
    s.write('me\r')
    const quiet = await s.waitForSettle({ quietMs: 50 })
    expect(quiet).toMatchObject({ settled: true, reason: 'quiet', input: null })
    const timeout = await s.waitForSettle({ quietMs: 60000, timeoutMs: 50 })
    expect(timeout).toMatchObject({ settled: false, reason: 'timeout' })
    s.kill()
    await s.exited
    expect(await s.waitForSettle()).toMatchObject({ settled: true, reason: 'exit' })
  })

  it('waitFor reports match, and its errors timeout, exit and aborted', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'echo hello; sleep 5'] })
    expect(await s.waitFor('hello')).toMatchObject({ reason: 'match', match: 'hello' })
    const timedOut = (await s.waitFor('never', { timeoutMs: 10 }).catch((e) => e)) as PtypilotError
    expect(timedOut).toMatchObject({ code: 'ERR_TIMEOUT', reason: 'timeout' })
    const aborted = (await s.waitFor('never', { signal: AbortSignal.abort() }).catch((e) => e)) as PtypilotError
    expect(aborted).toMatchObject({ code: 'ERR_ABORTED', reason: 'aborted' })
    s.kill()
    const exited = (await s.waitFor('never').catch((e) => e)) as PtypilotError
    expect(exited).toMatchObject({ code: 'ERR_NOT_RUNNING', reason: 'exit' })
  })

  it('waitForInput resolves with the exit, a timeout, or rejects when aborted', async () => {
    await using s = PtySession.spawn({ command: 'sh', args: ['-c', 'sleep 0.2; exit 4'] })
    expect(await s.waitForInput({ timeoutMs: 10 })).toMatchObject({ reason: 'timeout', state: { waiting: false }, exit: null })
    const aborted = (await s.waitForInput({ signal: AbortSignal.abort() }).catch((e) => e)) as PtypilotError
    expect(aborted).toMatchObject({ code: 'ERR_ABORTED', reason: 'aborted' })
    const ended = await s.waitForInput()
    expect(ended).toMatchObject({ reason: 'exit', exit: { exitCode: 4 }, state: { waiting: false, how: null } })
    expect(s.inputState()).toEqual({ waiting: false, kind: null, pid: null, program: null, since: null, how: null })
  })

  it('bad options are ERR_INVALID_ARG naming the option', async () => {
    await using s = PtySession.spawn({ command: 'cat' })
    await expect(s.waitForInput({ since: -1 })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('options.since') })
    await expect(s.waitForInput({ since: 1e9 })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('reached') })
    await expect(s.waitForInput({ timeoutMs: -5 })).rejects.toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('options.timeoutMs') })
    await expect(s.waitForInput({ nope: 1 } as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('nope') })
    expect(() => new PtySession().inputState()).toThrow(expect.objectContaining({ code: 'ERR_NOT_RUNNING' }))
  })

  it('keys sent to a raw-mode program are not hidden, and stay in the recording', async () => {
    const cast = join(tempDir(), 'less.cast')
    await using s = PtySession.spawn({ command: 'less', args: ['/etc/passwd'], record: cast })
    await s.waitForInput()
    expect(s.write('G').hidden).toBe(false)
    expect(s.sendKeys('q').hidden).toBe(false)
    await s.exited
    expect(readRecording(cast).events.filter((e) => e[1] === 'i').map((e) => e[2])).toEqual(['G', 'q'])
  })
})

kit.concurrent('toBeWaitingForInput waits for the kind, and .not looks once', async ({ pty, expect }) => {
  const s = pty.spawn({ command: 'sh', args: ['-c', 'sleep 0.2; printf "Password: "; stty -echo; read p; stty echo; echo; sleep 3'] })
  await expect(s).not.toBeWaitingForInput()
  await expect(s).toBeWaitingForInput('password')
  await expect(s).not.toBeWaitingForInput('line')
  const failed = await expect(s).toBeWaitingForInput('line', { timeout: 2000 }).catch((e) => e)
  expect(String(failed.message)).toContain('Received: the program waits for password input')
  expect(String(failed.message)).toContain('Password:')
  s.write('pw\r')
  const timedOut = await expect(s).toBeWaitingForInput(undefined, { timeout: 300 }).catch((e) => e)
  expect(String(timedOut.message)).toContain('is not waiting for input after 300 ms')
})
