// An embeddings exchange in Traffic and the inspector, in Chromium, against `mortar serve` with the
// scripted model: a reply of hundreds of base64 vectors is summarized (count, width, encoding, the
// first values of the first vectors) and its raw body shown only in part until asked for.
import { expect, test } from '@playwright/test'
import OpenAI from 'openai'
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

test('a large embeddings reply is summarized, and its raw body cut until asked for', async ({ page }, testInfo) => {
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
  const sdk = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: await server.uiKey(), maxRetries: 0 })
  const input = Array.from({ length: 300 }, (_, i) => `chunk ${i} of the file: export function f${i}() { return ${i} }`)
  const reply = await sdk.embeddings.create({ model: DEFAULT_MODEL_ID, input }, { headers: { 'X-Mortar-Session': 'indexing' } })
  expect(reply.data).toHaveLength(300)

  const row = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').getByText('indexing', { exact: true }) })
  await expect(row).toHaveAttribute('data-outcome', 'finished')
  await row.click()
  const detail = page.getByTestId('traffic-detail')
  const view = detail.getByTestId('embeddings-view')
  await expect(view.getByTestId('embeddings-count')).toHaveText('300')
  await expect(view.getByTestId('embeddings-dimensions')).toHaveText('384')
  await expect(view.getByTestId('embeddings-encoding')).toHaveText('base64 (float32, little-endian)')
  await expect(view.getByTestId('embeddings-row')).toHaveCount(16)
  await expect(view.getByTestId('embeddings-row').first()).toContainText('378 more')
  await expect(detail.getByTestId('raw-body-cut')).toBeVisible()
  await saveScreenshot(page, testInfo, 'embeddings-inspector')
  await detail.getByTestId('raw-body-all').click()
  await expect(detail.getByTestId('raw-body-cut')).toHaveCount(0)
  await expect(detail.getByTestId('raw-body')).toContainText('"usage"')
})
