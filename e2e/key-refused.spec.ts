import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot } from './fixtures/ui'

// A tab's key from the UI link lives one launch of `mortar serve`. When the gateway restarts
// (here on the same port with a new home, so the old key means nothing) or the key is revoked,
// the next call gets a 401, and the tab must return to the key prompt and say what happened, not sit in a workspace
// where everything fails.

let server: MortarServer | undefined

test.afterEach(async () => {
  await server?.stop()
  server = undefined
})

async function restart(previous: MortarServer): Promise<MortarServer> {
  const port = Number(new URL(previous.url).port)
  await previous.stop()
  return startMortarServer({ port })
}

/** The built `mortar` CLI on the server's home, as a user would run it beside `mortar serve`. */
function mortarCli(s: MortarServer, ...args: string[]): string {
  return execFileSync(process.execPath, [join(__dirname, '..', 'bin', 'mortar.js'), ...args, '--home', s.home], { encoding: 'utf8' })
}

test('after its key is revoked, sending from the playground returns to the key prompt with what happened', async ({ page }, testInfo) => {
  server = await startMortarServer()
  const created = JSON.parse(mortarCli(server, 'keys', 'create', '--name', 'tab', '--role', 'owner', '--json')) as { id: string; key: string }
  await page.goto(`${server.url}/`)
  await page.getByTestId('key-input').fill(created.key)
  await page.getByTestId('key-submit').click()
  await expect(page.getByTestId('nav-playground')).toBeVisible()
  // The telemetry stream stays open (it was let in before); the next request is refused.
  mortarCli(server, 'keys', 'revoke', created.id)

  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('key-prompt')).toBeVisible()
  const message = page.getByTestId('key-error')
  await expect(message).toContainText('no longer valid')
  await expect(message).toContainText('restarted')
  // How to get a fresh link, with the commands shown as code rather than literal backticks.
  await expect(message.locator('code', { hasText: 'mortar serve' }).first()).toBeVisible()
  await expect(message.locator('code', { hasText: 'mortar keys create --name NAME' })).toBeVisible()
  await expect(message).not.toContainText('`')
  await saveScreenshot(page, testInfo, 'key-no-longer-valid')

  // The UI link, pasted into the same tab, connects again.
  await openUi(page, server)
})

test('Traffic stops retrying a dead key and the tab returns to the prompt by itself', async ({ page }) => {
  server = await startMortarServer()
  const refused: string[] = []
  page.on('response', (response) => {
    if (response.status() === 401) refused.push(new URL(response.url()).pathname)
  })
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')

  server = await restart(server)
  // The telemetry stream broke off with the old gateway; its reconnection meets the new one.
  await expect(page.getByTestId('key-prompt')).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('key-error')).toContainText('no longer valid')
  // Each live stream (telemetry, traffic) asked the new gateway at most once: none kept retrying.
  expect(refused.length).toBeGreaterThan(0)
  expect(new Set(refused).size).toBe(refused.length)
  for (const path of refused) expect(['/v1/telemetry', '/v1/traffic/live']).toContain(path)
})

test('a UI link from an earlier launch says the key is no longer valid, a typo says refused', async ({ page }) => {
  server = await startMortarServer()
  const staleLink = await server.uiUrl()
  server = await restart(server)
  await page.goto(staleLink.replace(/^http:\/\/[^/]+/, server.url))
  await expect(page.getByTestId('key-prompt')).toBeVisible()
  await expect(page.getByTestId('key-error')).toContainText('no longer valid')

  await page.getByTestId('key-input').fill('mk_live_wrongwrongwrongwrongwrongwrongwrongwron')
  await page.getByTestId('key-submit').click()
  await expect(page.getByTestId('key-error')).toHaveText('The gateway refused that key.')
})
