'use strict'
// applyBashFixups: removes the output caps (`| head -20`, `| tail -50`) and
// the redundant `2>&1` an agent appends to a shell command, for a runner
// that merges stderr and caps output itself. Reads the command as bash
// does (quotes, substitutions, groups) and runs nothing; the work is native
// (src/core/shell/fixups.rs).

const native = require('./binding.js')

/** `{ command, stripped }`: the command without its trailing caps. */
function applyBashFixups(command) {
  if (typeof command !== 'string') {
    const err = new Error(`command must be a string, got ${command === null ? 'null' : typeof command}`)
    err.code = 'ERR_INVALID_ARG'
    throw err
  }
  return native.applyBashFixups(command)
}

module.exports = { applyBashFixups }
