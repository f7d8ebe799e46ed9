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

test('the UI link signs in once: its tab stays signed in on reload, the link itself is then refused', async ({ page, browser }, testInfo) => {
  const link = await server.uiUrl()
  // A one-time code, never a key: the URL ends up in the browser's history.
  expect(link).toMatch(/\/#code=[A-Za-z0-9_-]{32}$/)
  expect(link).not.toContain('mk_live_')
  await page.goto(link)
  await expect(page.getByTestId('nav-playground')).toBeVisible()
  await expect(page.getByTestId('gateway-status')).toHaveText('Gateway: ok')
  expect(page.url()).toBe(`${server.url}/`)
  // The tab's credential lives in its sessionStorage: a reload is still signed in, with no code.
  await page.reload()
  await expect(page.getByTestId('nav-playground')).toBeVisible()
  expect(page.url()).not.toContain('code=')

  // The same link in another browser context (another profile, a synced history entry): refused.
  const other = await browser.newContext()
  try {
    const stranger = await other.newPage()
    await stranger.goto(link)
    await expect(stranger.getByTestId('key-prompt')).toBeVisible()
    await expect(stranger.getByTestId('key-error')).toContainText('This UI link is no longer valid: it was already used.')
    expect(stranger.url()).toBe(`${server.url}/`)
    await saveScreenshot(stranger, testInfo, 'ui-link-used')
  } finally {
    await other.close()
  }
  // The first tab is unaffected.
  await page.reload()
  await expect(page.getByTestId('nav-playground')).toBeVisible()
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

  await page.getByTestId('key-input').fill(await server.firstRunKey())
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
