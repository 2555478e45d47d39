'use strict'
// The native binding as the JS modules use it, and what loading it does once
// per thread. lib/binding.js finds and loads the addon; here every export is
// wrapped so that its errors carry documented codes (lib/errors.js), and the
// process-wide hooks are installed: programs never outlive the process, and a
// panic the native side contained becomes a process warning.

const { wrapNative } = require('./errors.js')
const { jsThreadReading } = require('./runtime.js')

// Every error from the binding gets a documented code (lib/errors.js).
const native = wrapNative(require('./binding.js'))

// Where output is read: on the JS thread only where the runtime's event loop
// is libuv's (lib/runtime.js).
native.setJsThreadReading(jsThreadReading())

// Programs must not outlive the process (or worker) that started them, even
// when it ends with process.exit().
process.once('exit', () => native.killAllStarted())

// A panic the native side contained (in the screen model, the session thread,
// a callback) is never silent: it becomes a process warning on every thread
// that loaded ptypilot; a PtySession also lists its own in `incidents`.
native.onIncident((message) => {
  process.emitWarning(message, { type: 'PtypilotIncident', code: 'PTYPILOT_PANIC' })
})

module.exports = native
