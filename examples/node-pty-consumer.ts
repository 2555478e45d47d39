// A terminal back end written the way VS Code's terminal process drives
// node-pty, on ptypilot/node-pty: the switch from node-pty is the import line
// alone (a test compiles this file against node-pty's own typings too).
//
// What it does as an IDE's pty host does:
//
// - flow control by unacknowledged characters: every chunk sent to the
//   renderer counts until the renderer acknowledges it; above a high
//   watermark the pty is paused, below a low one resumed;
// - the title: `process` polled every 200 ms, a change reported;
// - `resize` from the UI at any time, also while the program is exiting (a
//   resize that loses the race with the exit must not throw);
// - shutdown: `kill()`, then the exit from `onExit`. node-pty users wait
//   250 ms after the exit for output still on its way; here every byte is
//   delivered before `onExit`, so the exit is reported at once.
//
// Type-checked with the project (`npx tsc -p tsconfig.json`, strict); run
// end to end by __test__/node-pty-consumer.test.ts.
import * as pty from 'ptypilot/node-pty'

/** Flow control thresholds, in characters not yet acknowledged by the renderer. */
export const FlowControl = {
  /** Pause the pty above this many. */
  HighWatermarkChars: 100_000,
  /** Resume it below this many. */
  LowWatermarkChars: 5_000,
  /** The renderer acknowledges in steps of this many. */
  CharCountAckSize: 5_000,
} as const

/** What the host sends to its renderer. */
export interface TerminalEvents {
  data(chunk: string): void
  title(title: string): void
  exit(exitCode: number, signal: number | undefined): void
}

/** How the host starts a terminal. */
export interface LaunchConfig {
  executable: string
  args: string[]
  cwd: string
  env: { [key: string]: string | undefined }
  cols: number
  rows: number
}

/** One terminal of the pty host. */
export class TerminalProcess {
  private readonly ptyProcess: pty.IPty
  private unacknowledgedChars = 0
  private paused = false
  private title = ''
  private exitCode: number | undefined
  private readonly titleTimer: ReturnType<typeof setInterval>
  private readonly disposables: pty.IDisposable[] = []
  /** How often the pty was paused and resumed by flow control (for the curious). */
  readonly flowStats = { pauses: 0, resumes: 0 }

  constructor(config: LaunchConfig, private readonly events: TerminalEvents) {
    const options: pty.IPtyForkOptions | pty.IWindowsPtyForkOptions = {
      name: 'xterm-256color',
      cwd: config.cwd,
      env: config.env,
      cols: config.cols,
      rows: config.rows,
      conptyInheritCursor: false,
    }
    this.ptyProcess = pty.spawn(config.executable, config.args, options)
    this.disposables.push(
      this.ptyProcess.onData((chunk) => {
        this.unacknowledgedChars += chunk.length
        if (!this.paused && this.unacknowledgedChars > FlowControl.HighWatermarkChars) {
          this.paused = true
          this.flowStats.pauses++
          this.ptyProcess.pause()
        }
        this.events.data(chunk)
      }),
      this.ptyProcess.onExit(({ exitCode, signal }) => {
        this.exitCode = exitCode
        clearInterval(this.titleTimer)
        for (const d of this.disposables) d.dispose()
        this.events.exit(exitCode, signal)
      }),
    )
    this.titleTimer = setInterval(() => this.pollTitle(), 200)
    this.pollTitle()
  }

  /** The program's process id. */
  get pid(): number {
    return this.ptyProcess.pid
  }

  /** Input typed in the renderer. */
  input(data: string): void {
    if (this.exitCode === undefined) this.ptyProcess.write(data)
  }

  /** The renderer's size changed. */
  resize(cols: number, rows: number): void {
    try {
      this.ptyProcess.resize(Math.max(cols, 1), Math.max(rows, 1))
    } catch (err) {
      // Only a resize that lost the race with the exit may fail.
      if (this.exitCode === undefined) throw err
    }
  }

  /** The renderer has processed `charCount` more characters. */
  acknowledgeDataEvent(charCount: number): void {
    this.unacknowledgedChars = Math.max(this.unacknowledgedChars - charCount, 0)
    if (this.paused && this.unacknowledgedChars < FlowControl.LowWatermarkChars) {
      this.paused = false
      this.flowStats.resumes++
      this.ptyProcess.resume()
    }
  }

  /** Ends the terminal; `exit` follows through `onExit`. */
  shutdown(): void {
    // Output held back by flow control must be able to come, then the exit.
    if (this.paused) {
      this.paused = false
      this.ptyProcess.resume()
    }
    this.ptyProcess.kill()
  }

  private pollTitle(): void {
    const title = this.ptyProcess.process
    if (title !== this.title) {
      this.title = title
      this.events.title(title)
    }
  }
}
