'use strict'
// Shell (a persistent shell that runs one command at a time and knows when
// each one ends) and executeShell (one command in a fresh shell), with their
// argument checks. The contract is in lib/shell.d.ts.

const { invalidArg, describe } = require('./errors.js')
const { checkSignal, isInstance, own, read } = require('./args.js')
const native = require('./addon.js')
const { guarded, checkFunction, checkOptionsObject, withSignal, baseEnv } = require('./common.js')

/**
 * A persistent shell that runs one command at a time and knows when each one
 * ends. See lib/shell.d.ts for the contract.
 */
class Shell {
  #native

  constructor(options) {
    checkOptionsObject(options, 'options')
    this.#native = new native.NativeShell(options ?? undefined, { baseEnv: baseEnv() })
  }

  /** The shell's process id while it runs (it starts on the first run), else null. */
  get pid() {
    return this.#native.pid
  }

  /** True while a run is in progress. */
  get busy() {
    return this.#native.busy
  }

  run(options, onData) {
    try {
      checkOptionsObject(options, 'options')
      checkFunction(onData, 'onData')
    } catch (err) {
      return Promise.reject(err)
    }
    const listener = guarded('onData', onData)
    let signal
    try {
      signal = options ? read(options, 'signal', 'options') : undefined
      checkSignal(signal, 'options')
    } catch (err) {
      return Promise.reject(err)
    }
    return withSignal(signal, 'options', (token) => this.#native.run(options, listener, token))
  }

  /** Sends input to the running command (one run with `stdin: 'terminal'`). */
  write(data) {
    if (typeof data !== 'string' && !isInstance(data, Uint8Array)) {
      throw invalidArg(`write() takes a string or a Uint8Array, got ${describe(data)}`)
    }
    this.#native.write(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))
  }

  abort() {
    return this.#native.abort()
  }

  close() {
    return this.#native.close()
  }

  async [Symbol.asyncDispose]() {
    await this.close()
  }
}

async function executeShell(options, onData) {
  checkOptionsObject(options, 'options')
  if (!options) throw invalidArg('executeShell() needs options with a `command`')
  // A fresh shell starts where and with what the command wants, so the
  // command needs no subshell; `shell` picks the shell as for `new Shell`.
  const { shell: program, cwd, env, sessionEnv, snapshotPath, sandbox, ...run } = own(options, 'options')
  const shell = new Shell({ shell: program, cwd, env, sessionEnv, snapshotPath, sandbox })
  try {
    return await shell.run(run, onData)
  } finally {
    await shell.close()
  }
}

module.exports = { Shell, executeShell }
