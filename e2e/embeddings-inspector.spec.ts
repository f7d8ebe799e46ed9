// The IDE tools' other endpoints in Traffic and the inspector, in Chromium, against `mortar serve`
// with the scripted model. An embeddings reply of hundreds of base64 vectors is summarized (count,
// width, encoding, the first values of the first vectors) and its raw body shown only in part
// until asked for. A streamed completion (POST /v1/completions, what Continue's tab autocomplete
// sends) adds up, from its `text_completion` chunks, to its text, finish reason and usage, as a
// chat stream does.
import { expect, test, type Page } from '@playwright/test'
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

/** Traffic, following live, and an SDK with the page's own key. */
async function openTraffic(page: Page): Promise<OpenAI> {
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: await server.uiKey(), maxRetries: 0 })
}

/** Opens the exchange of the session named so, once it has finished, and returns the inspector. */
async function inspectSession(page: Page, session: string) {
  const row = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').getByText(session, { exact: true }) })
  await expect(row).toHaveAttribute('data-outcome', 'finished')
  await row.click()
  return page.getByTestId('traffic-detail')
}

test('a large embeddings reply is summarized, and its raw body cut until asked for', async ({ page }, testInfo) => {
  const sdk = await openTraffic(page)
  const input = Array.from({ length: 300 }, (_, i) => `chunk ${i} of the file: export function f${i}() { return ${i} }`)
  const reply = await sdk.embeddings.create({ model: DEFAULT_MODEL_ID, input }, { headers: { 'X-Mortar-Session': 'indexing' } })
  expect(reply.data).toHaveLength(300)

  const detail = await inspectSession(page, 'indexing')
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

test('a streamed completion is assembled: its text, finish reason and usage', async ({ page }, testInfo) => {
  const sdk = await openTraffic(page)
  // The scripted model repeats the prompt; max_tokens cuts it short, so the finish is `length`.
  const prompt = 'def add(a, b):\n    return a + b\n'
  const stream = await sdk.completions.create(
    { model: DEFAULT_MODEL_ID, prompt, max_tokens: 5, stream: true, stream_options: { include_usage: true } },
    { headers: { 'X-Mortar-Session': 'autocomplete' } },
  )
  let text = ''
  let usage: OpenAI.CompletionUsage | undefined
  for await (const chunk of stream) {
    text += chunk.choices[0]?.text ?? ''
    usage = chunk.usage ?? usage
  }
  expect(text).not.toBe('')
  expect(usage?.completion_tokens).toBe(5)

  const detail = await inspectSession(page, 'autocomplete')
  await expect(detail.getByTestId('parsed-content')).toHaveText(text)
  await expect(detail.getByTestId('parsed-finish-reason')).toHaveText('length')
  await expect(detail.getByTestId('parsed-usage')).toHaveText(`prompt ${usage?.prompt_tokens} · completion 5 · total ${usage?.total_tokens}`)
  await expect(detail.getByTestId('parsed-done')).toHaveText('received')
  // Each text chunk is named by the text it carries.
  await expect(detail.getByTestId('frame-row').first().getByTestId('frame-kind')).toHaveText('content')
  await saveScreenshot(page, testInfo, 'completions-inspector')
})
