import { defineConfig } from 'vitest/config'
import { capMs } from './__test__/helpers'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.ts'],
    // PTY tests spawn real processes; forks isolate each file in its own process.
    pool: 'forks',
    // Five times longer under user-mode emulation (`npm run test:arm64`: capMs).
    testTimeout: capMs(30_000),
    hookTimeout: capMs(30_000),
  },
})
