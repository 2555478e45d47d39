// The examples as a user runs them: with plain `node`, not through Vitest's
// module loader (which resolves imports a plain `node` run refuses). The
// README's first command line is `npm install && npm run demo`; the demo
// (examples/agent-demo.mjs) stages exactly one of two hunks through the git
// tool and says so, and the web panel's server module loads.
import { describe, it, expect } from 'vitest'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const root = join(__dirname, '..')

describe('the examples under plain node', () => {
  it('npm run demo runs examples/agent-demo.mjs, which stages exactly one hunk', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(pkg.scripts.demo).toMatch(/node examples\/agent-demo\.mjs$/)
    const { stdout } = await run(process.execPath, ['examples/agent-demo.mjs'], { cwd: root, timeout: 60_000 })
    expect(stdout).toContain('+line 3: fix the typo (keep this)')
    expect(stdout.trimEnd()).toMatch(/Exactly one hunk was staged\.$/)
  }, 90_000)

  it('the web panel example loads as an ES module', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('./examples/web/server.mjs'); console.log(typeof m.startTaskPanel)"],
      { cwd: root, timeout: 30_000 },
    )
    expect(stdout.trim()).toBe('function')
  })
})
