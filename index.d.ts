/// <reference types="node" />
/**
 * ptypilot — drive interactive terminal programs from Node.js.
 *
 * Every error thrown or rejected by this package is an `Error` with a stable
 * `code` (see `PtypilotErrorCode`) and a message that names the offending value.
 *
 * Conventions for arguments, everywhere:
 * - durations (`timeoutMs`, `graceMs`, `gracefulMs`, `quietMs`) are numbers of
 *   milliseconds from 0 to 1e12 (about 31 years); NaN, negatives, Infinity and
 *   larger values are `ERR_INVALID_ARG` naming the option;
 * - `signal` is an `AbortSignal`, or an object with a boolean `aborted` and both
 *   `addEventListener` and `removeEventListener`; anything else is `ERR_INVALID_ARG`;
 * - an option whose getter (or proxy trap) throws is `ERR_INVALID_ARG` naming it,
 *   and a call that returns a promise then rejects rather than throwing;
 * - environment variable names are non-empty without `=` or NUL, values and
 *   paths without NUL (`ERR_INVALID_ARG` naming the variable).
 *
 * @module ptypilot
 */

// The declarations live beside the code they describe, one file per module
// under lib/; this file re-exports them all.

export * from './lib/errors.js'
export * from './lib/pty-session.js'
export * from './lib/process.js'
export * from './lib/shell.js'
export * from './lib/tool-registry.js'
export * from './lib/terminal-tools.js'
export * from './lib/keys.js'
export * from './lib/tasks.js'
export * from './lib/bash-fixups.js'
export * from './lib/screen-model.js'
export * from './lib/recording.js'
export * from './lib/lean-screen.js'
export * from './lib/mouse.js'
export * from './lib/svg.js'
export * from './lib/panel.js'
export * from './lib/sandbox.js'
export * from './lib/network.js'
