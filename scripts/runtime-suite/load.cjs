'use strict'
// Runtime suite case `load (CJS)`: require() of the package's CommonJS entries
// from a linked path (the checkout) and by name (a project's node_modules).
const assert = require('node:assert')
const path = require('node:path')
const root = path.join(__dirname, '..', '..')
const byPath = require(path.join(root, 'index.js'))
const nodePty = require(path.join(root, 'lib', 'node-pty.js'))
for (const name of ['PtySession', 'Shell', 'ToolRegistry', 'terminalTools', 'exec', 'ScreenModel']) {
  assert.strictEqual(typeof byPath[name], 'function', `index.js exports ${name}`)
}
assert.strictEqual(typeof nodePty.spawn, 'function', 'lib/node-pty.js exports spawn')
const project = process.argv[2]
if (project) {
  const { createRequire } = require('node:module')
  const req = createRequire(path.join(project, 'package.json'))
  assert.strictEqual(req('ptypilot').PtySession, byPath.PtySession, "require('ptypilot') is the same module")
  assert.strictEqual(typeof req('ptypilot/node-pty').spawn, 'function')
}
console.log(`${Object.keys(byPath).length} exports`)
