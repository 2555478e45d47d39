// Runtime suite case `load (ESM)`: import of the package's ES module entries
// from a linked path (the checkout), agreeing with the CommonJS ones.
import assert from 'node:assert'
import { createRequire } from 'node:module'
import * as esm from '../../index.mjs'
import defaultExport from '../../index.mjs'
import * as nodePty from '../../lib/node-pty.mjs'

const require = createRequire(import.meta.url)
const cjs = require('../../index.js')
for (const name of Object.keys(cjs)) assert.strictEqual(esm[name], cjs[name], `index.mjs exports ${name} as index.js does`)
assert.strictEqual(defaultExport.PtySession, cjs.PtySession)
assert.strictEqual(nodePty.spawn, require('../../lib/node-pty.js').spawn)
console.log(`${Object.keys(esm).length - 1} named exports`)
