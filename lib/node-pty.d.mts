// Types of the ES module entry of ptypilot/node-pty (lib/node-pty.mjs): the
// same as lib/node-pty.d.ts, plus the default export (the CommonJS module
// object, as Node gives it to `import`).
export * from './node-pty.js'
import * as nodePty from './node-pty.js'
export default nodePty
