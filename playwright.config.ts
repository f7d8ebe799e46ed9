import { defineConfig } from '@playwright/test'

// Browser tests drive Debian's Chromium (Playwright's own browsers cannot be downloaded on
// these machines; set CHROMIUM_PATH to use another). The tests start the built CLI themselves, so run
// `npm run build` first (`npm test` does).
export default defineConfig({
  testDir: './e2e',
  // Each spec starts its own gateway process; one worker keeps the machine load predictable.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
})
