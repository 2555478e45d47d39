'use strict'
// The public JS surface of ptypilot: this file only re-exports. Each surface
// lives in its own module under lib/ (its types beside it); the native addon
// (loaded by lib/binding.js, wrapped by lib/addon.js) is internal.
// index.mjs re-exports the same objects for `import`.

const { PtySession, exec } = require('./lib/pty-session.js')
const { Shell, executeShell } = require('./lib/shell.js')
const { ToolRegistry, gitTool } = require('./lib/tool-registry.js')
const { Process } = require('./lib/process.js')
const { TaskRunner } = require('./lib/tasks.js')
// Keys: encodeKeys, and key parsing (parseKey, matchesKey, parseKittySequence,
// matchesKittySequence, matchesLegacySequence, parseMouseSequence).
const keys = require('./lib/keys.js')
const { applyBashFixups } = require('./lib/bash-fixups.js')
// The terminal tool set (pty_exec, pty_start, pty_read, pty_send, pty_list, pty_stop).
const { terminalTools } = require('./lib/terminal-tools.js')
// The screen model alone (no program, no pty).
const { ScreenModel } = require('./lib/screen-model.js')
// Recordings (asciicast v2, written by the `record` option).
const { readRecording, replay } = require('./lib/recording.js')
// The live panel: sessions in a browser, a person taking one over.
const { startPanel } = require('./lib/panel.js')
// The lean screen view an agent is sent.
const { screenView, rebuildScreen, ScreenViewTracker } = require('./lib/lean-screen.js')
// The sandbox's refusals, as tool replies name them.
const { sandboxRefusals } = require('./lib/sandbox.js')
// The person asked about hosts a sandbox's network allow list does not name.
const { setNetworkAsker } = require('./lib/network.js')

module.exports = {
  PtySession,
  exec,
  encodeKeys: keys.encodeKeys,
  Process,
  Shell,
  executeShell,
  ToolRegistry,
  gitTool,
  TaskRunner,
  parseKey: keys.parseKey,
  matchesKey: keys.matchesKey,
  parseKittySequence: keys.parseKittySequence,
  matchesKittySequence: keys.matchesKittySequence,
  matchesLegacySequence: keys.matchesLegacySequence,
  parseMouseSequence: keys.parseMouseSequence,
  applyBashFixups,
  terminalTools,
  ScreenModel,
  readRecording,
  replay,
  screenView,
  rebuildScreen,
  ScreenViewTracker,
  startPanel,
  sandboxRefusals,
  setNetworkAsker,
}
