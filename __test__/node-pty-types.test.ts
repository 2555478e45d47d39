// ptypilot/node-pty's types: the VS Code-style consumer compiles with
// `tsc --strict` against the subpath's types, and the very same source
// compiles against node-pty's own typings once its import line names
// node-pty — so code written for node-pty type-checks after the switch,
// and the other way round. The checks of __test__/node-pty-types.ts are
// compiled here on their own as well.
import { describe, it, expect, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('..', import.meta.url))
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
// Inside the repository, so that `ptypilot/node-pty` resolves to this package.
const work = mkdtempSync(join(repo, '.node-pty-types-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const consumer = readFileSync(join(repo, 'examples', 'node-pty-consumer.ts'), 'utf8')
const IMPORT = "import * as pty from 'ptypilot/node-pty'"

/** Runs tsc --strict on `files` (in `work`) with NodeNext resolution; its output on failure. */
async function typecheck(files: string[], extra: object = {}): Promise<string> {
  const name = `tsconfig.${files.map((f) => f.replace(/\W/g, '_')).join('-')}.json`
  writeFileSync(
    join(work, name),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], skipLibCheck: false, ...extra },
      files,
    }),
  )
  try {
    await run(process.execPath, [tsc, '-p', name], { cwd: work })
    return ''
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string }
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err)
  }
}

describe('ptypilot/node-pty types', () => {
  it('the consumer imports the subpath', () => {
    expect(consumer).toContain(IMPORT)
  })

  it('the consumer compiles with tsc --strict against the subpath, and unchanged but for the import against node-pty\'s typings; the checks hold', async () => {
    writeFileSync(join(work, 'consumer.ts'), consumer)
    writeFileSync(join(work, 'consumer-node-pty.ts'), consumer.replace(IMPORT, "import * as pty from 'node-pty'"))
    writeFileSync(join(work, 'consumer-lydell.ts'), consumer.replace(IMPORT, "import * as pty from '@lydell/node-pty'"))
    copyFileSync(join(repo, '__test__', 'node-pty-types.ts'), join(work, 'checks.ts'))
    expect(await typecheck(['consumer.ts', 'consumer-node-pty.ts', 'consumer-lydell.ts', 'checks.ts'])).toBe('')
  }, 180_000)

  it('a wrong use is caught: a member node-pty\'s IPty does not have', async () => {
    writeFileSync(
      join(work, 'wrong.ts'),
      "import type * as NodePty from 'node-pty'\nimport { spawn } from 'ptypilot/node-pty'\nconst p: NodePty.IPty = spawn('sh', [])\nvoid p.ptsName\n",
    )
    expect(await typecheck(['wrong.ts'])).toMatch(/wrong\.ts.*ptsName/)
  }, 180_000)
})
