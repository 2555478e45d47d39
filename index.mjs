// The ES module entry of ptypilot (`import ... from 'ptypilot'`): the same
// objects as the CommonJS entry index.js, so both can be used in one program.
// Every name index.js exports is listed here (a test checks the two agree).
import ptypilot from './index.js'

export const {
  PtySession,
  exec,
  encodeKeys,
  Process,
  Shell,
  executeShell,
  ToolRegistry,
  gitTool,
  terminalTools,
  TaskRunner,
  parseKey,
  matchesKey,
  parseKittySequence,
  matchesKittySequence,
  matchesLegacySequence,
  parseMouseSequence,
  applyBashFixups,
  ScreenModel,
  readRecording,
  replay,
  screenView,
  rebuildScreen,
  ScreenViewTracker,
  startPanel,
  sandboxRefusals,
  setNetworkAsker,
} = ptypilot
export default ptypilot
