// Debian's headless Chromium for the tests that look at what ptypilot draws
// (SVG screenshots, HTML traces), driven by playwright-core without a browser
// download. CI installs the chromium package (.ci/run): there a missing
// browser is a failure, elsewhere the suites skip with a reason.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const chromiumAvailable = existsSync(CHROMIUM)
if (!chromiumAvailable && process.env.CI) {
  throw new Error(`${CHROMIUM} is missing; .ci/run installs Debian's chromium package`)
}
/** Why a suite that needs the browser is skipped, or '' when it runs. */
export const noChromium = chromiumAvailable ? '' : ` — skipped: ${CHROMIUM} is not installed (apt-get install chromium)`

/** Chromium's command-line flags for a test browser. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Pages keep drawing (animation frames, timers) while several browsers share the machine.
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
]

/** A fresh browser profile; `close()` ends the browser and removes the profile. */
export async function openBrowser(viewport = { width: 1000, height: 700 }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'ptypilot-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
