// TaskRunner: events per task in order (started, every log chunk, finished
// last), wait() with the final state for success, failure, timeout and
// cancellation, and its errors.
import { describe, it, expect } from 'vitest'
import { TaskRunner, type TaskEvent, type PtypilotError } from '../index.js'
import { alive } from './helpers.js'

/** A runner that records every event. */
function recording(options: ConstructorParameters<typeof TaskRunner>[0] = {}) {
  const events: TaskEvent[] = []
  const runner = new TaskRunner({ ...options, onEvent: (e) => events.push(e) })
  const of = (taskId: string) => events.filter((e) => e.taskId === taskId)
  const log = (taskId: string) =>
    of(taskId)
      .map((e) => (e.type === 'task_log' ? e.chunk : ''))
      .join('')
  return { runner, events, of, log }
}

/** Checks the shape of one task's event sequence: started, logs, finished. */
function expectOrdered(events: TaskEvent[]) {
  expect(events[0].type).toBe('task_started')
  expect(events.at(-1)!.type).toBe('task_finished')
  expect(events.slice(1, -1).every((e) => e.type === 'task_log')).toBe(true)
}

describe('TaskRunner', () => {
  it('a task that succeeds: started, its output, finished last; wait resolves with success', async () => {
    const { runner, events, of, log } = recording()
    const task = runner.start({ name: 'greet', command: 'sh', args: ['-c', 'echo one; echo two'] })
    expect(task).toMatchObject({ taskId: 'task-1', name: 'greet', state: 'running', exitCode: null })
    expect(typeof task.pid).toBe('number')
    // The started event is emitted before start() returns.
    expect(events).toEqual([{ type: 'task_started', taskId: 'task-1', name: 'greet', startedAt: task.startedAt }])
    const done = await runner.wait(task.taskId)
    expect(done).toMatchObject({ taskId: 'task-1', state: 'success', exitCode: 0, signal: null })
    expect(done.durationMs).toBeGreaterThanOrEqual(0)
    expect(done.finishedAt).toBeGreaterThanOrEqual(done.startedAt)
    expectOrdered(of(task.taskId))
    expect(log(task.taskId)).toBe('one\r\ntwo\r\n')
    expect(of(task.taskId).at(-1)).toEqual({
      type: 'task_finished',
      taskId: 'task-1',
      name: 'greet',
      state: 'success',
      exitCode: 0,
      signal: null,
      durationMs: done.durationMs,
    })
    expect(runner.get(task.taskId)).toEqual(done)
    // Waiting again after the end resolves with the same result.
    expect(await runner.wait(task.taskId)).toEqual(done)
  })

  it('a task that fails: state error with its exit code; a signal it dies of is an error too', async () => {
    const { runner, of, log } = recording()
    const failing = runner.start({ command: 'sh', args: ['-c', 'echo broken >&2; exit 3'] })
    expect(failing.name).toBe('sh -c echo broken >&2; exit 3')
    const killed = runner.start({ command: 'sh', args: ['-c', 'kill -KILL $$'] })
    const [a, b] = await Promise.all([runner.wait(failing.taskId), runner.wait(killed.taskId)])
    expect(a).toMatchObject({ state: 'error', exitCode: 3, signal: null })
    expect(b).toMatchObject({ state: 'error', exitCode: null, signal: 'SIGKILL' })
    expectOrdered(of(failing.taskId))
    expect(log(failing.taskId)).toBe('broken\r\n')
    expect(of(failing.taskId).at(-1)).toMatchObject({ state: 'error', exitCode: 3 })
  })

  it('a task that times out: state timeout, its process gone', async () => {
    const { runner, of, log } = recording()
    const task = runner.start({
      name: 'slow',
      command: 'sh',
      args: ['-c', 'echo started; exec sleep 30'],
      timeoutMs: 300,
    })
    const done = await runner.wait(task.taskId)
    expect(done).toMatchObject({ state: 'timeout', exitCode: null, signal: 'SIGTERM' })
    expect(alive(task.pid!)).toBe(false)
    expectOrdered(of(task.taskId))
    expect(log(task.taskId)).toBe('started\r\n')
    expect(of(task.taskId).at(-1)).toMatchObject({ type: 'task_finished', state: 'timeout' })
  })

  it('a cancelled task: cancel() resolves with state cancelled; an AbortSignal cancels too', async () => {
    const { runner, of } = recording()
    const task = runner.start({ command: 'sleep', args: ['30'] })
    const controller = new AbortController()
    const other = runner.start({ command: 'sleep', args: ['30'], signal: controller.signal })
    const waiting = runner.wait(task.taskId)
    const done = await runner.cancel(task.taskId, { graceMs: 500 })
    expect(done).toMatchObject({ state: 'cancelled', signal: 'SIGTERM' })
    expect(await waiting).toEqual(done)
    expect(alive(task.pid!)).toBe(false)
    expectOrdered(of(task.taskId))
    controller.abort()
    expect(await runner.wait(other.taskId)).toMatchObject({ state: 'cancelled' })
    // Cancelling a finished task changes nothing.
    expect(await runner.cancel(task.taskId)).toEqual(done)
  })

  it('keeps each task in order when several run at once, and loses no output', async () => {
    const { runner, events, of, log } = recording()
    const lines = 3000
    const ids = ['a', 'b', 'c'].map(
      (tag) =>
        runner.start({ command: 'sh', args: ['-c', `i=1; while [ $i -le ${lines} ]; do echo ${tag}$i; i=$((i+1)); done`] })
          .taskId,
    )
    const results = await Promise.all(ids.map((id) => runner.wait(id)))
    expect(results.map((r) => r.state)).toEqual(['success', 'success', 'success'])
    for (const [i, id] of ids.entries()) {
      expectOrdered(of(id))
      const tag = ['a', 'b', 'c'][i]
      expect(log(id)).toBe(Array.from({ length: lines }, (_, n) => `${tag}${n + 1}\r\n`).join(''))
    }
    // Every event belongs to one of them; nothing after a task's finish.
    expect(events.length).toBe(ids.reduce((n, id) => n + of(id).length, 0))
    expect(runner.list().map((t) => t.taskId)).toEqual(ids)
  })

  it('a raw task logs the exact bytes as Uint8Array chunks', async () => {
    const { runner, of } = recording()
    const task = runner.start({ command: 'printf', args: ['a\\377b\\303\\251'], raw: true })
    expect(await runner.wait(task.taskId)).toMatchObject({ state: 'success' })
    const chunks = of(task.taskId).flatMap((e) => (e.type === 'task_log' ? [e.chunk] : []))
    expect(chunks.every((c) => c instanceof Uint8Array)).toBe(true)
    expect(Buffer.concat(chunks as Uint8Array[])).toEqual(Buffer.from([0x61, 0xff, 0x62, 0xc3, 0xa9]))
    expect(() => runner.start({ command: 'true', raw: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG' }),
    )
  })

  it('onEvent adds and removes listeners; a throwing listener does not stop the others', async () => {
    const runner = new TaskRunner({
      onEvent: () => {
        throw new Error('listener failure')
      },
    })
    const seen: string[] = []
    const off = runner.onEvent((e) => seen.push(e.type))
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      const task = runner.start({ command: 'true' })
      await runner.wait(task.taskId)
      expect(seen[0]).toBe('task_started')
      expect(seen.at(-1)).toBe('task_finished')
      off()
      const second = runner.start({ command: 'true' })
      await runner.wait(second.taskId)
      expect(seen.at(-1)).toBe('task_finished')
      expect(seen.filter((t) => t === 'task_started').length).toBe(1)
      await new Promise((r) => setImmediate(r))
      expect(warnings.some((m) => m.includes('listener failure'))).toBe(true)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('wait() rejects with ERR_TIMEOUT or ERR_ABORTED while the task keeps running', async () => {
    await using runner = new TaskRunner()
    const task = runner.start({ command: 'sleep', args: ['30'] })
    await expect(runner.wait(task.taskId, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'ERR_TIMEOUT' })
    const controller = new AbortController()
    const waiting = runner.wait(task.taskId, { signal: controller.signal })
    controller.abort()
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_ABORTED' })
    expect(runner.get(task.taskId).state).toBe('running')
    expect(alive(task.pid!)).toBe(true)
  })

  it('session() gives the task terminal: typing reaches the program', async () => {
    await using runner = new TaskRunner({ defaults: { cols: 100, rows: 30 } })
    const events: TaskEvent[] = []
    runner.onEvent((e) => events.push(e))
    const task = runner.start({ command: 'cat' })
    const session = runner.session(task.taskId)
    session.write('typed\r')
    await session.waitFor('typed\ntyped')
    expect(session.screen().cols).toBe(100)
    session.sendKeys('ctrl+d')
    expect(await runner.wait(task.taskId)).toMatchObject({ state: 'success' })
    expect(events.map((e) => (e.type === 'task_log' ? e.chunk : '')).join('')).toBe('typed\r\ntyped\r\n')
  })

  it('rejects bad arguments and unknown ids with coded errors; a task that cannot start has no events', async () => {
    const { runner, events } = recording({ keepFinished: 1 })
    expect(() => runner.start({ command: 'no-such-program-ptypilot' })).toThrow(
      expect.objectContaining({ code: 'ERR_SPAWN' }),
    )
    expect(() => runner.start({ command: 'true', name: 5 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG' }),
    )
    expect(() => runner.start({ command: 'true', colour: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG' }),
    )
    expect(events).toEqual([])
    expect(() => runner.get('task-99')).toThrow(expect.objectContaining({ code: 'ERR_UNKNOWN_HANDLE' }))
    await expect(runner.wait('task-99')).rejects.toMatchObject({ code: 'ERR_UNKNOWN_HANDLE' })
    await expect(runner.wait(7 as unknown as string)).rejects.toMatchObject({ code: 'ERR_INVALID_ARG' })
    expect(() => new TaskRunner({ keepFinished: -1 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG' }))
    expect(() => new TaskRunner({ bogus: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG', message: expect.stringContaining('bogus') }),
    )
    // keepFinished: 1 forgets the older of two finished tasks.
    const first = runner.start({ command: 'true' })
    await runner.wait(first.taskId)
    const second = runner.start({ command: 'true' })
    await runner.wait(second.taskId)
    const err = (await runner.wait(first.taskId).catch((e) => e)) as PtypilotError
    expect(err.code).toBe('ERR_UNKNOWN_HANDLE')
    expect(runner.list().map((t) => t.taskId)).toEqual([second.taskId])
  })
})
