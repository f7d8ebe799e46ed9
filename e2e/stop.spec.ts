import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { frameCount, openUi, saveScreenshot, setMessage, words } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  // 20 tokens/s and a long message: the stream runs for many seconds unless stopped.
  server = await startMortarServer({ args: ['--scripted-tps', '20'] })
})

test.afterAll(async () => {
  await server?.stop()
})

test('Stop ends a paced stream mid-way and the inspector marks it stopped', async ({ page }, testInfo) => {
  await openUi(page, server)
  await setMessage(page, words(300))
  await expect(page.getByTestId('stop-button')).toBeDisabled()
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('stop-button')).toBeEnabled()
  await expect.poll(() => frameCount(page)).toBeGreaterThan(4)
  await saveScreenshot(page, testInfo, 'inspector-running')

  await page.getByTestId('stop-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'stopped')
  await expect(page.getByTestId('outcome')).toContainText('[DONE] without a finish chunk')
  await expect(page.getByTestId('stop-result')).toContainText('Stopped chatcmpl-')
  await expect(page.getByTestId('parsed-done')).toHaveText('received')
  await expect(page.getByTestId('parsed-finish-reason')).toHaveText('—')
  // The usage chunk after a stop counts what was generated.
  await expect(page.getByTestId('parsed-usage')).toContainText('completion')
  await expect(page.getByTestId('stop-button')).toBeDisabled()
  const content = (await page.getByTestId('parsed-content').textContent()) ?? ''
  expect(content.length).toBeGreaterThan(0)
  expect(content.length).toBeLessThan(words(300).length)
  await saveScreenshot(page, testInfo, 'inspector-stopped')
})

test('Escape stops too, and Disconnect marks the stream client-disconnected', async ({ page }) => {
  await openUi(page, server)
  await setMessage(page, words(300))
  await page.keyboard.press('Control+Enter')
  await expect.poll(() => frameCount(page)).toBeGreaterThan(3)
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'stopped')

  await page.getByTestId('send-button').click()
  await expect.poll(() => frameCount(page)).toBeGreaterThan(3)
  await page.getByTestId('disconnect-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'client_disconnected')
  await expect(page.getByTestId('parsed-done')).toHaveText('not received')

  // The gateway saw the hang-up too: Traffic shows it ended as client_disconnected.
  await page.getByTestId('nav-traffic').click()
  await expect(page.locator('[data-testid="traffic-row"][data-outcome="disconnected"]')).toHaveCount(1)
  // History keeps both runs.
  await page.getByTestId('nav-playground').click()
  await expect(page.getByTestId('history-item')).toHaveCount(2)
})
