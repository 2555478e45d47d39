// Shell options and edge cases beyond the basics: sessionEnv and snapshotPath, the command's
// stdin (/dev/null by default, the terminal on request, with shell.write), and commands that try
// to break the shell's markers. Every behaviour is checked with bash, dash and zsh where installed.
import { describe, it, expect, afterEach, beforeAll } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Shell, executeShell, type PtypilotError } from '../index.js'
import { have } from './helpers.js'

const shells = ['bash', 'dash', ...(have('zsh') ? ['zsh'] : [])]

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptypilot-shell-options-'))
  writeFileSync(
    join(dir, 'snapshot.sh'),
    [
      'echo noise from the snapshot; echo more noise >&2',
      'greet() { echo "hello $1"; }',
      "alias ll='echo listing'",
      'export SNAP_VAR=from-snapshot',
      'OVERRIDE=snapshot-value; export OVERRIDE',
      "PROMPT_COMMAND='echo from PROMPT_COMMAND'",
      '',
    ].join('\n'),
  )
})

describe.each(shells)('%s', (program) => {
  let open: Shell[] = []
  function shell(options: ConstructorParameters<typeof Shell>[0] = {}): Shell {
    const s = new Shell({ shell: program, ...options })
    open.push(s)
    return s
  }
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()))
    open = []
  })

  describe('snapshotPath and sessionEnv', () => {
    it('sources the snapshot quietly, then exports sessionEnv over it, in every new shell', async () => {
      const s = shell({
        snapshotPath: join(dir, 'snapshot.sh'),
        sessionEnv: { OVERRIDE: 'session-value', EXTRA: "it's $x `y`", HOME_GONE: undefined },
      })
      const first = await s.run({
        command: 'greet world; echo "$SNAP_VAR $OVERRIDE $EXTRA"; sh -c \'echo "child: $OVERRIDE"\'; ll',
      })
      // The snapshot's noise is discarded; its function, alias and exports work; sessionEnv wins
      // and is exported to children; PROMPT_COMMAND from the snapshot is undone.
      expect(first).toMatchObject({
        exitCode: 0,
        output: "hello world\nfrom-snapshot session-value it's $x `y`\nchild: session-value\nlisting\n",
      })
      if (program === 'bash') {
        expect((await s.run({ command: 'echo "[${PROMPT_COMMAND-}]"' })).output).toBe('[]\n')
      }
      // A run's own export is lost with the shell; snapshot and sessionEnv come back.
      await s.run({ command: 'export OVERRIDE=changed-by-a-run' })
      expect((await s.run({ command: 'echo "$OVERRIDE"' })).output).toBe('changed-by-a-run\n')
      expect((await s.run({ command: 'exit 3' })).exitCode).toBe(3)
      expect(await s.run({ command: 'echo "$OVERRIDE"; greet again' })).toMatchObject({
        exitCode: 0,
        output: 'session-value\nhello again\n',
      })
    })

    it('sessionEnv undefined unsets an inherited variable', async () => {
      const s = shell({ env: { KEYS_TEST_VAR: 'inherited' }, sessionEnv: { KEYS_TEST_VAR: undefined } })
      expect((await s.run({ command: 'echo "[${KEYS_TEST_VAR-unset}]"' })).output).toBe('[unset]\n')
    })

    it('executeShell takes both', async () => {
      const r = await executeShell({
        shell: program,
        command: 'echo "$A"; greet x',
        sessionEnv: { A: 'a' },
        snapshotPath: join(dir, 'snapshot.sh'),
      })
      expect(r).toMatchObject({ exitCode: 0, output: 'a\nhello x\n' })
    })

    it('a snapshot that cannot be read fails the run with ERR_SPAWN naming it', async () => {
      const missing = join(dir, 'missing.sh')
      const s = shell({ snapshotPath: missing })
      await expect(s.run({ command: 'true' })).rejects.toMatchObject({
        code: 'ERR_SPAWN',
        path: missing,
        errnoName: 'ENOENT',
      } satisfies Partial<PtypilotError>)
      await expect(shell({ snapshotPath: dir }).run({ command: 'true' })).rejects.toMatchObject({
        code: 'ERR_SPAWN',
        errnoName: 'EISDIR',
      })
    })

    it('a snapshot that exits the shell fails the run with ERR_SPAWN', async () => {
      writeFileSync(join(dir, `exits-${program}.sh`), 'exit 4\n')
      const s = shell({ snapshotPath: join(dir, `exits-${program}.sh`) })
      await expect(s.run({ command: 'true' })).rejects.toMatchObject({ code: 'ERR_SPAWN' })
    })
  })
})

describe('bad shell options', () => {
  it.each([
    [{ sessionEnv: { 'A-B': 'x' } }, /options\.sessionEnv: "A-B" is not a shell variable name/],
    [{ sessionEnv: { A: 'x\0y' } }, /sessionEnv/],
    [{ sessionEnv: 'A=1' }, /options\.sessionEnv/],
    [{ snapshotPath: 42 }, /options\.snapshotPath/],
    [{ snapshotPath: '' }, /options\.snapshotPath/],
    [{ snapshotPath: '/tmp/a\nb' }, /options\.snapshotPath must be a file path without control characters/],
  ])('%j', (options, message) => {
    let err: unknown
    try {
      new Shell(options as never)
    } catch (e) {
      err = e
    }
    expect(err).toMatchObject({ code: 'ERR_INVALID_ARG', message: expect.stringMatching(message) })
  })
})
