'use strict'
// The person asked about hosts: a sandbox with `network: { allow, ask: true }`
// sends a program's connection to a host on neither list to the process's
// asker (one per process, as the proxy is), and the connection waits for the
// answer. `ptypilot mcp --ask network` sets it to an MCP elicitation (through
// the isolated host, lib/host.js); a library user sets their own here.

const { describe, invalidArg } = require('./errors.js')
const native = require('./addon.js')

/**
 * Sets the asker: `ask({ host, port })` resolves to true to let the connection through, or to a
 * string saying why not; a rejection or anything else refuses it. `null` removes it (such hosts
 * are then refused).
 */
function setNetworkAsker(ask) {
  if (ask === null) {
    native.setNetworkAsker(null)
    return
  }
  if (typeof ask !== 'function') throw invalidArg(`ask must be a function or null, got ${describe(ask)}`)
  native.setNetworkAsker((json) => {
    const { id, host, port } = JSON.parse(json)
    Promise.resolve()
      .then(() => ask({ host, port }))
      .then(
        (allow) => native.answerNetworkQuestion(id, allow === true, typeof allow === 'string' ? allow : undefined),
        (err) => native.answerNetworkQuestion(id, false, `the person could not be asked: ${err && err.message ? err.message : String(err)}`),
      )
  })
}

module.exports = { setNetworkAsker }
