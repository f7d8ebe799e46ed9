import { defineConfig } from '@playwright/test'
import base from '../../playwright.config'

// `npm run screenshots`: retakes the README's screenshots (docs/images/) from the built UI, in
// light and dark, at 1280 px. On demand only: `npm test` runs ../*.spec.ts, not these.
export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: '*.shots.ts',
  timeout: 60_000,
})
