// The header's gateway indicator follows the real state: the gateway going away and coming back,
// and a model server behind it going away and coming back (shown in Settings with the reason).
import { expect, test } from '@playwright/test'
import { startFakeModelServer, type FakeModelServer } from '../src/test-kit/fake-model-server'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot } from './fixtures/ui'

let server: MortarServer | undefined
let fake: FakeModelServer | undefined

test.afterEach(async () => {
  await server?.stop()
  await fake?.close()
  server = undefined
  fake = undefined
})

test('the indicator turns unreachable when the gateway stops and ok when it is back', async ({ page }) => {
  server = await startMortarServer()
  const port = Number(new URL(server.url).port)
  await openUi(page, server)
  const indicator = page.getByTestId('gateway-status')
  await expect(indicator).toHaveText('Gateway: ok')

  await server.stop()
  server = undefined
  await expect(indicator).toHaveAttribute('data-health', 'unreachable', { timeout: 8_000 })
  await expect(indicator).toHaveText('Gateway: unreachable')

  server = await startMortarServer({ port })
  await expect(indicator).toHaveAttribute('data-health', 'ok', { timeout: 8_000 })
  await expect(indicator).toHaveText('Gateway: ok')
})

test('a model server that goes away shows in the header and in Settings, with why', async ({ page }, testInfo) => {
  // A vLLM-like server: its /v1/models says its window, which Settings shows.
  fake = await startFakeModelServer({ info: { 'GET /v1/models': { object: 'list', data: [{ id: 'Qwen/Qwen2.5-7B-Instruct', object: 'model', max_model_len: 32768 }] } } })
  server = await startMortarServer({ args: ['--upstream', fake.url] })
  await openUi(page, server)
  const indicator = page.getByTestId('gateway-status')
  await expect(indicator).toHaveText('Gateway: ok')
  await page.getByTestId('nav-settings').click()
  const deployment = page.getByTestId('status-deployment')
  await expect(deployment).toHaveAttribute('data-state', 'up')
  await expect(deployment).toContainText('32,768 tokens')

  await fake.kill()
  // Nothing is sent to it: the gateway's own health check finds it gone.
  await expect(indicator).toHaveAttribute('data-health', 'degraded', { timeout: 15_000 })
  await expect(indicator).toHaveText('Gateway: ok · model server down (upstream)')
  await expect(deployment).toHaveAttribute('data-state', 'down', { timeout: 10_000 })
  await expect(page.getByTestId('status-replica')).toHaveAttribute('data-state', 'down')
  await expect(page.getByTestId('status-replica-error')).toHaveText('unreachable (ECONNREFUSED)')
  await saveScreenshot(page, testInfo, 'model-server-down')

  await fake.restart()
  await expect(indicator).toHaveAttribute('data-health', 'ok', { timeout: 15_000 })
  await expect(deployment).toHaveAttribute('data-state', 'up', { timeout: 10_000 })
})
