// The VS Code-style consumer (examples/node-pty-consumer.ts) end to end on
// ptypilot/node-pty: a 50 MB flood to a renderer that is slower than the
// program, with flow control by unacknowledged characters, the title
// polled, resizes racing the exit, and kill then onExit.
import { describe, it, expect, vi } from 'vitest'
import { TerminalProcess, FlowControl, type LaunchConfig } from '../examples/node-pty-consumer'

const FLOOD = 50 * 1000 * 1000

function launch(executable: string, args: string[]): LaunchConfig {
  return { executable, args, cwd: process.cwd(), env: { ...process.env }, cols: 80, rows: 24 }
}

describe('a VS Code-style terminal host on ptypilot/node-pty', () => {
  it('a 50 MB flood to a slow renderer: nothing lost, flow control holds the backlog, memory bounded', async () => {
    const queue: string[] = []
    let queued = 0
    let rendered = 0
    let maxBacklog = 0
    let allX = true
    const titles: string[] = []
    let exit: { exitCode: number; signal: number | undefined } | undefined
    const rss0 = process.memoryUsage().rss
    let rssPeak = rss0
    const host = new TerminalProcess(launch('sh', ['-c', `head -c ${FLOOD} /dev/zero | tr '\\0' x`]), {
      data: (chunk) => {
        if (allX && !/^x*$/.test(chunk)) allX = false
        queue.push(chunk)
        queued += chunk.length
        maxBacklog = Math.max(maxBacklog, queued - rendered)
      },
      title: (t) => titles.push(t),
      exit: (exitCode, signal) => (exit = { exitCode, signal }),
    })
    // The renderer: 256 KiB of characters every 10 ms (about 25 MB/s, slower
    // than the pty), acknowledged in steps, as xterm.js acknowledges parsed data.
    let unacked = 0
    let resizes = 0
    const renderer = setInterval(() => {
      let budget = 256 * 1024
      while (budget > 0 && queue.length > 0) {
        const chunk = queue[0]
        const take = Math.min(budget, chunk.length)
        if (take === chunk.length) queue.shift()
        else queue[0] = chunk.slice(take)
        budget -= take
        rendered += take
        unacked += take
        while (unacked >= FlowControl.CharCountAckSize) {
          host.acknowledgeDataEvent(FlowControl.CharCountAckSize)
          unacked -= FlowControl.CharCountAckSize
        }
      }
      if (queue.length === 0 && unacked > 0) {
        host.acknowledgeDataEvent(unacked)
        unacked = 0
      }
      // The UI resizes now and then, also while the program is exiting.
      host.resize(80 + (resizes++ % 40), 24)
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
    }, 10)
    try {
      await vi.waitFor(() => expect(exit).toBeDefined(), { timeout: 120_000, interval: 50 })
      // Every byte arrived before the exit was reported.
      expect(queued).toBe(FLOOD)
      expect(allX).toBe(true)
      expect(exit).toEqual({ exitCode: 0, signal: 0 })
      await vi.waitFor(() => expect(rendered).toBe(FLOOD), { timeout: 60_000, interval: 50 })
    } finally {
      clearInterval(renderer)
    }
    expect(titles[0]).toBe('sh')
    expect(host.flowStats.pauses).toBeGreaterThan(0)
    expect(host.flowStats.resumes).toBe(host.flowStats.pauses)
    // What waits for the renderer is the high watermark plus what the
    // session held when the pty was paused (at most its 4 MiB outbox and a
    // read), never a share of the flood.
    expect(maxBacklog).toBeLessThan(FlowControl.HighWatermarkChars + (4 << 20) + (64 << 10))
    console.log(
      `flood ${FLOOD} chars: backlog at most ${maxBacklog}, ${host.flowStats.pauses} pauses, ` +
        `RSS grew by at most ${((rssPeak - rss0) / (1 << 20)).toFixed(1)} MiB`,
    )
    // Buffering the flood would take more than the flood itself (50 MB).
    expect(rssPeak - rss0).toBeLessThan(40 << 20)
  }, 180_000)

  it('input, the title following the foreground program, kill then onExit', async () => {
    const titles: string[] = []
    let output = ''
    let exit: { exitCode: number; signal: number | undefined } | undefined
    const host = new TerminalProcess(launch('bash', ['--norc', '--noprofile', '-i']), {
      data: (chunk) => (output += chunk),
      title: (t) => titles.push(t),
      exit: (exitCode, signal) => (exit = { exitCode, signal }),
    })
    host.input('PS1="$ "\r')
    await vi.waitFor(() => expect(output).toContain('$ '), { timeout: 10_000 })
    host.input('sleep 30\r')
    await vi.waitFor(() => expect(titles).toContain('sleep'), { timeout: 10_000 })
    host.input('\x03')
    await vi.waitFor(() => expect(titles.at(-1)).toBe('bash'), { timeout: 10_000 })
    expect(titles[0]).toBe('bash')
    host.shutdown()
    await vi.waitFor(() => expect(exit).toBeDefined(), { timeout: 10_000 })
    expect(exit).toEqual({ exitCode: 0, signal: 1 })
    // After the exit the host takes input and resizes without complaint.
    host.input('ignored\r')
    host.resize(100, 30)
  })
})
