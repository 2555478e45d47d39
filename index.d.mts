// Types of the ES module entry (index.mjs): the same as index.d.ts (the
// lib/*.d.ts files it re-exports), plus the default export (the CommonJS
// module object, as Node gives it to `import`).
export * from './index.js'
import * as ptypilot from './index.js'
export default ptypilot
