import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { expect, test } from '@playwright/test'
import OpenAI from 'openai'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { expectNotClipped } from './fixtures/layout'
import { chatInNoSession, openUi, readClipboard, saveScreenshot, words } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  // Capture off: Traffic is built from the telemetry stream alone (captured-traffic.spec.ts has the rest).
  server = await startMortarServer({ args: ['--scripted-tps', '20', '--capture', 'off'] })
})

test.afterAll(async () => {
  await server?.stop()
})

test('a request from the openai SDK shows up live in Traffic, and Stop there ends it', async ({ page }, testInfo) => {
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')

  // The SDK gets a key of its own (made over /v1/keys with the UI's owner key): Traffic names it.
  const made = await fetch(`${server.url}/v1/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await server.uiKey()}` },
    body: JSON.stringify({ name: 'sdk-agent-key', role: 'member' }),
  })
  expect(made.status).toBe(201)
  const { key } = (await made.json()) as { key: string }
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 })
  const stream = await client.chat.completions.create(
    { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: words(300) }], stream: true },
    { headers: { 'X-Mortar-Session': 'sdk-agent' } },
  )
  let received = ''
  const reading = (async () => {
    for await (const chunk of stream) received += chunk.choices[0]?.delta?.content ?? ''
  })()

  const row = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').filter({ hasText: 'sdk-agent' }) })
  await expect(row).toHaveAttribute('data-status', 'running')
  await expect(row.getByTestId('traffic-key-name')).toHaveText('sdk-agent-key')
  await expect(row.getByTestId('traffic-this-window')).toHaveCount(0)
  await expect(page.getByTestId('running-count')).toHaveText('1 running')
  await saveScreenshot(page, testInfo, 'traffic-running')
  await row.getByTestId('traffic-stop').click()

  await reading // the SDK's stream ends (with [DONE], no finish chunk)
  expect(received.length).toBeGreaterThan(0)
  expect(received.length).toBeLessThan(words(300).length)
  await expect(row).toHaveAttribute('data-status', 'stopped')

  // A second, non-streamed request with fetch: finished, with its usage.
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await server.uiKey()}`, 'X-Mortar-Session': 'script' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: false }),
  })
  expect(response.status).toBe(200)
  const scripted = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').filter({ hasText: 'script' }) })
  await expect(scripted).toHaveAttribute('data-status', 'finished')
  await expect(scripted.getByTestId('traffic-key-name')).toHaveText('ui') // `mortar serve`'s UI key
  await expect(page.getByTestId('traffic-row')).toHaveCount(2)

  // Filters, and the detail of a request another client made: its events and reports.
  await page.getByTestId('traffic-filter-session').fill('sdk')
  await expect(page.getByTestId('traffic-row')).toHaveCount(1)
  await row.click()
  await expect(page.getByTestId('traffic-detail')).toContainText('request.stopped')
  await expect(page.getByTestId('traffic-detail-client')).toHaveText('sdk-agent-key')
  await expect(page.getByTestId('traffic-detail').getByTestId('optimizer-report')).toBeVisible()
  await saveScreenshot(page, testInfo, 'traffic')
})

test("the window's own requests in Traffic open in the inspector and the playground", async ({ page }, testInfo) => {
  await openUi(page, server)
  await page.getByTestId('message-0-content').fill('from the window')
  await page.getByTestId('header-session').fill('window-session')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })

  await page.getByTestId('message-0-content').fill('changed since')
  await page.getByTestId('nav-traffic').click()
  const row = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').filter({ hasText: 'window-session' }) })
  await expect(row).toHaveAttribute('data-status', 'finished')
  await expect(row.getByTestId('traffic-key-name')).toHaveText('ui')
  await expect(row.getByTestId('traffic-this-window')).toHaveText('this window')
  await saveScreenshot(page, testInfo, 'traffic-this-window')
  await row.click()
  await page.getByTestId('traffic-open-inspector').click()
  await expect(page.getByTestId('request-id')).toHaveText(/^chatcmpl-/)
  await page.getByTestId('nav-traffic').click()
  await row.click()
  await page.getByTestId('traffic-open-playground').click()
  await expect(page.getByTestId('message-0-content')).toHaveValue('from the window')
  await expect(page.getByTestId('header-session')).toHaveValue('window-session')
  await expect(page.getByTestId('inspector')).toBeVisible()
})

test('at 1280 px every column title, the model id and a session Mortar made up show whole (tooltip and copy too); a cost with no price says why', async ({ page, context }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
  await chatInNoSession(server, 'no session named')
  const session = page.getByTestId('traffic-session').and(page.locator('[data-session^="sess_"]')).first()
  await expect(session).toBeVisible()
  const id = (await session.getAttribute('data-session')) ?? ''
  expect(id).toMatch(/^sess_[0-9a-f]{24}$/)
  await expect(session).toHaveText(id)
  await expect(session).toHaveAttribute('title', new RegExp(id))
  await expectNotClipped(session.getByTestId('traffic-session-text'), 'the session id')
  await session.hover()
  await session.getByTestId('traffic-session-copy').click()
  expect(await readClipboard(page)).toBe(id)

  const row = page.getByTestId('traffic-row').filter({ has: session })
  await expect(row.getByTestId('traffic-model')).toHaveText(DEFAULT_MODEL_ID)
  await expectNotClipped(row.getByTestId('traffic-model'), 'the model id')
  // The scripted model has no price in config.json: the "—" says so.
  await expect(row.getByTestId('traffic-cost')).toHaveText('—')
  await expect(row.getByTestId('traffic-cost')).toHaveAttribute('title', /no price in config\.json/)

  for (const title of await page.getByRole('columnheader').all()) await expectNotClipped(title, `the column title "${await title.textContent()}"`)
})
