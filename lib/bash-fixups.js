'use strict'
// applyBashFixups: removes the output caps (`| head -20`, `| tail -50`) and
// the redundant `2>&1` an agent appends to a shell command, for a runner
// that merges stderr and caps output itself. Reads the command as bash
// does (quotes, substitutions, groups) and runs nothing; the work is native
// (src/core/shell/fixups.rs).

const { invalidArg, describe } = require('./errors.js')

const native = require('./addon.js')

/** `{ command, stripped }`: the command without its trailing caps. */
function applyBashFixups(command) {
  if (typeof command !== 'string') throw invalidArg(`command must be a string, got ${describe(command)}`)
  return native.applyBashFixups(command)
}

module.exports = { applyBashFixups }
