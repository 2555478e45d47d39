'use strict'
// Runtime suite case `Shell`: a bash Shell runs commands with exit codes and
// keeps its state (cwd, variables) between them; a run times out without
// losing the shell.
const assert = require('node:assert')
const path = require('node:path')
const { Shell } = require(path.join(__dirname, '..', '..', 'index.js'))

async function main() {
  const shell = new Shell({ shell: 'bash' })
  try {
    assert.strictEqual((await shell.run({ command: 'X=41; cd /tmp' })).exitCode, 0)
    const b = await shell.run({ command: 'echo $((X + 1)) $(pwd); (exit 3)' })
    assert.deepStrictEqual([b.output, b.exitCode], ['42 /tmp\n', 3])
    assert.strictEqual((await shell.run({ command: 'sleep 100', timeoutMs: 200 })).timedOut, true)
    assert.strictEqual((await shell.run({ command: 'echo $X' })).output, '41\n')
  } finally {
    await shell.close()
  }
  console.log('4 runs, state kept, a timeout')
}
main().catch((e) => {
  console.error(e)
  process.exit(1)
})
