'use strict'
// Runtime suite case `node-pty API`: ptypilot/node-pty's spawn, onData,
// write, resize, pause/resume and onExit, as node-pty's users call them.
const assert = require('node:assert')
const path = require('node:path')
const pty = require(path.join(__dirname, '..', '..', 'lib', 'node-pty.js'))

async function main() {
  const term = pty.spawn('bash', ['--norc', '--noprofile', '-i'], { name: 'xterm-256color', cols: 80, rows: 24, env: { ...process.env, PS1: '$ ' } })
  let out = ''
  term.onData((d) => (out += d))
  const exited = new Promise((resolve) => term.onExit(resolve))
  const until = async (re) => {
    const deadline = Date.now() + 10_000
    while (!re.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    assert.match(out, re)
  }
  await until(/\$ $/)
  term.resize(100, 30)
  term.write('stty size; echo $((6*7))\r')
  await until(/30 100\r\n42\r\n/)
  term.pause()
  term.resume()
  term.write('exit 7\r')
  const { exitCode } = await exited
  assert.strictEqual(exitCode, 7)
  assert.ok(term.pid > 0)
  console.log(`pid, resize, write, onData, onExit ${exitCode}`)
}
main().catch((e) => {
  console.error(e)
  process.exit(1)
})
