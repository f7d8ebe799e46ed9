// Against a fake model server (the integration tests' fixture): the markers a real server's
// misbehaviour produces, and the keep-alive pings of a slow first token.
import { expect, test } from '@playwright/test'
import { startFakeModelServer, type FakeModelServer } from '../src/test-kit/fake-model-server'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot } from './fixtures/ui'

let fake: FakeModelServer
let server: MortarServer

test.beforeAll(async () => {
  fake = await startFakeModelServer()
  server = await startMortarServer({ args: ['--upstream', fake.url], env: { MORTAR_TEST_PING_INTERVAL_MS: '100' } })
})

test.afterAll(async () => {
  await server?.stop()
  await fake?.close()
})

test('a slow first token: the gateway keeps the stream alive with pings, shown as pings', async ({ page }, testInfo) => {
  fake.behavior = { ...fake.behavior, mode: 'stall-before-first-token', stallMs: 700, deltaDelayMs: 30 }
  await openUi(page, server)
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  const pings = page.locator('[data-testid="frame-row"][data-kind="ping"]')
  expect(await pings.count()).toBeGreaterThan(2)
  await expect(pings.first().getByTestId('frame-kind')).toHaveText('ping')
  await page.getByTestId('frames-toggle-raw').click()
  await expect(pings.first().getByTestId('frame-raw')).toHaveText(': pingLFLF')
  expect(Number(await page.getByTestId('metric-pings').textContent())).toBeGreaterThan(2)
  await expect(page.getByTestId('parsed-content')).toHaveText('Hello from the model')
  // The model server's own usage count, passed through.
  await expect(page.getByTestId('parsed-usage')).toContainText('prompt 11 · completion 4 · total 15')
  await page.getByTestId('inspector-tab-headers').click()
  await expect(page.getByTestId('response-headers').locator('[data-header="x-mortar-upstream"]')).toContainText('127.0.0.1')
  await saveScreenshot(page, testInfo, 'inspector-pings')
})

test('an error event mid-stream is marked upstream_error', async ({ page }, testInfo) => {
  fake.behavior = { ...fake.behavior, mode: 'die-mid-stream', dieAfterChunks: 2, deltaDelayMs: 20 }
  await openUi(page, server)
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'upstream_error', { timeout: 15_000 })
  await expect(page.locator('[data-testid="frame-row"][data-kind="error"]')).toHaveCount(1)
  await expect(page.getByTestId('parsed-done')).toHaveText('not received')
  await expect(page.getByTestId('parsed-error')).toContainText('upstream')
  await saveScreenshot(page, testInfo, 'inspector-upstream-error')
})
