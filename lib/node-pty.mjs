// The ES module entry of ptypilot/node-pty: the same objects as the CommonJS
// lib/node-pty.js (`import { spawn } from 'ptypilot/node-pty'`).
import nodePty from './node-pty.js'

export const { spawn, fork, createTerminal, open } = nodePty
export default nodePty
