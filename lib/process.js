'use strict'
// Process: one process found by pid or by executable, remembered by pid and
// start time so that it never reaches another process that reuses the pid;
// its tree can be listed, signalled and terminated. Argument checks included;
// the contract is in lib/process.d.ts.

const { invalidArg, describe, mapError } = require('./errors.js')
const { isInstance, own } = require('./args.js')
const native = require('./addon.js')
const { checkOptionsObject, rejectUnknown, withSignal } = require('./common.js')

const TERMINATE_OPTIONS = ['group', 'gracefulMs', 'timeoutMs', 'signal']
const WAIT_OPTIONS = ['timeoutMs', 'signal']

function checkPid(pid) {
  if (typeof pid !== 'number') throw invalidArg(`pid must be a positive integer, got ${describe(pid)}`)
}

function checkKillSignal(signal) {
  if (signal !== undefined && typeof signal !== 'string' && typeof signal !== 'number') {
    throw invalidArg(`signal must be a signal name such as 'SIGTERM' or a number, got ${describe(signal)}`)
  }
}

function checkNumber(value, what) {
  if (value !== undefined && typeof value !== 'number') {
    throw invalidArg(`${what} must be a number of milliseconds, got ${describe(value)}`)
  }
}

/**
 * One process, found by pid or by executable, remembered by pid and start
 * time so that it never reaches another process that reuses the pid. See
 * lib/process.d.ts for the contract.
 */
class Process {
  #native

  /** Internal: use `Process.fromPid()` or `Process.fromPath()`. */
  constructor(handle) {
    if (!isInstance(handle, native.NativeProcess)) {
      const err = new TypeError('Process cannot be constructed directly; use Process.fromPid() or Process.fromPath()')
      err.code = 'ERR_INVALID_ARG'
      throw err
    }
    this.#native = handle
  }

  static fromPid(pid) {
    checkPid(pid)
    let handle
    try {
      handle = native.NativeProcess.fromPid(pid)
    } catch (err) {
      // A static of a native class: not wrapped by wrapNative.
      throw mapError(err)
    }
    return handle === null ? null : new Process(handle)
  }

  static fromPath(path) {
    if (typeof path !== 'string') throw invalidArg(`path must be a string, got ${describe(path)}`)
    let handles
    try {
      handles = native.NativeProcess.fromPath(path)
    } catch (err) {
      throw mapError(err)
    }
    return handles.map((handle) => new Process(handle))
  }

  get pid() {
    return this.#native.pid
  }

  get ppid() {
    return this.#native.ppid
  }

  args() {
    return this.#native.args()
  }

  groupId() {
    return this.#native.groupId()
  }

  children() {
    return this.#native.children().map((handle) => new Process(handle))
  }

  status() {
    return this.#native.status()
  }

  killTree(signal = 'SIGTERM') {
    checkKillSignal(signal)
    this.#native.killTree(signal)
  }

  async terminate(options) {
    checkOptionsObject(options, 'options')
    const { group, gracefulMs, timeoutMs, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', TERMINATE_OPTIONS)
    if (group !== undefined && typeof group !== 'boolean') {
      throw invalidArg(`options.group must be a boolean, got ${describe(group)}`)
    }
    checkNumber(gracefulMs, 'options.gracefulMs')
    checkNumber(timeoutMs, 'options.timeoutMs')
    return withSignal(signal, 'options', (token) => this.#native.terminate(group, gracefulMs, timeoutMs, token))
  }

  async waitForExit(options) {
    checkOptionsObject(options, 'options')
    const { timeoutMs, signal, ...rest } = own(options, 'options') || {}
    rejectUnknown(rest, 'options', WAIT_OPTIONS)
    checkNumber(timeoutMs, 'options.timeoutMs')
    return withSignal(signal, 'options', (token) => this.#native.waitForExit(timeoutMs, token))
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Process { pid: ${this.pid}, status: '${this.status()}' }`
  }
}

module.exports = { Process }
