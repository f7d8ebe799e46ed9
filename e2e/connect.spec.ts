import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { saveScreenshot } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

test('the UI link connects with its key and takes the key out of the address bar', async ({ page }) => {
  const link = await server.uiUrl()
  expect(link).toMatch(/\/#key=mk_live_/)
  await page.goto(link)
  await expect(page.getByTestId('nav-playground')).toBeVisible()
  await expect(page.getByTestId('gateway-status')).toHaveText('Gateway: ok')
  expect(page.url()).toBe(`${server.url}/`)
  // The key stays with the tab (sessionStorage): a reload is still connected.
  await page.reload()
  await expect(page.getByTestId('nav-playground')).toBeVisible()
  expect(page.url()).not.toContain('key=')
})

test('without a key the page asks for one, refuses a wrong one, and accepts the right one', async ({ page }, testInfo) => {
  await page.goto(`${server.url}/`)
  await expect(page.getByRole('heading', { name: 'Mortar' })).toBeVisible()
  await expect(page.getByTestId('gateway-status')).toHaveText('Gateway: ok')
  await expect(page.getByTestId('key-prompt')).toBeVisible()
  await saveScreenshot(page, testInfo, 'key-prompt')

  await page.getByTestId('key-input').fill('mk_live_wrongwrongwrongwrongwrongwrongwrongwron')
  await page.getByTestId('key-submit').click()
  await expect(page.getByTestId('key-error')).toContainText('refused')

  await page.getByTestId('key-input').fill(await server.uiKey())
  await page.getByTestId('key-submit').click()
  await expect(page.getByTestId('nav-playground')).toBeVisible()

  // Settings in a browser: key management over HTTP (this is an owner key), no gateway
  // settings (those are the desktop app's), and a way to forget the key.
  await page.getByTestId('nav-settings').click()
  await expect(page.getByTestId('settings-snippets')).toBeVisible()
  await expect(page.getByTestId('settings-keys')).toHaveAttribute('data-access', 'allowed')
  await expect(page.getByTestId('settings-gateway')).toHaveCount(0)
  await expect(page.getByTestId('snippet-text')).toContainText(`${server.url}/v1`)
  await saveScreenshot(page, testInfo, 'settings-browser')
  await page.getByTestId('forget-key').click()
  await expect(page.getByTestId('key-prompt')).toBeVisible()
})
