import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

test('the placeholder page served by `mortar serve` reaches the gateway', async ({ page }) => {
  await page.goto(`${server.url}/`)

  await expect(page).toHaveTitle('Mortar')
  await expect(page.getByRole('heading', { name: 'Mortar' })).toBeVisible()
  await expect(page.getByTestId('gateway-status')).toHaveText('Gateway: ok')
})
