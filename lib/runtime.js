'use strict'
// The JavaScript runtime ptypilot runs in (Node, Bun or Deno), and the choices
// made from it once per process: whether output is read on the JS thread
// (src/fastpath.rs) or only on the session threads.
//
// Reading on the JS thread needs libuv's event loop behind the runtime's
// `uv_*` functions. Node has it. Bun exports those names as stubs that abort
// the process (`unsupported uv function: uv_poll_init`), so under Bun output
// is read on the session threads only. Deno has its own poll handles: they
// work, but a flood read through them arrives in 16 KiB pieces about 12 ms
// apart (bench `runtimes`: a listener's throughput fell to a tenth of the
// session-thread path's), so under Deno too the session threads read. The
// choice is made from what the runtime says it is (`process.versions.bun`,
// `process.versions.deno`), never by probing the symbols (Bun's stubs cannot
// be probed without aborting).
//
// PTYPILOT_READING=session (or =js) overrides the choice for the process:
// the tests use it to run the session-thread path under Node too.

/** `'bun'`, `'deno'` or `'node'`. */
function runtimeName() {
  if (process.versions.bun !== undefined) return 'bun'
  if (process.versions.deno !== undefined || typeof globalThis.Deno !== 'undefined') return 'deno'
  return 'node'
}

/** Whether output may be read on the JS thread in this process (see above). */
function jsThreadReading() {
  const forced = process.env.PTYPILOT_READING
  if (forced === 'session') return false
  if (forced === 'js') return true
  return runtimeName() === 'node'
}

module.exports = { runtimeName, jsThreadReading }
