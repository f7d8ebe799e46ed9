// Streams no well-behaved gateway sends, played to the page by Playwright in place of the
// gateway's reply: a stream cut without [DONE], and one of 10,000 frames.
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, saveScreenshot } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

const head = { id: 'chatcmpl-000000000000000000000000', object: 'chat.completion.chunk', created: 1, model: DEFAULT_MODEL_ID }
const frame = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`
const content = (text: string) => frame({ ...head, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] })
const finish = frame({ ...head, choices: [{ index: 0, logprobs: null, finish_reason: 'stop' }] })

async function replyWith(page: Page, body: string): Promise<void> {
  await page.route('**/v1/chat/completions', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-mortar-request-id': head.id, 'x-mortar-optimizer': 'ruleset=2; mode=off' },
      body,
    }),
  )
}

test('a stream that closes without [DONE] is marked incomplete', async ({ page }) => {
  await openUi(page, server)
  await replyWith(page, content('Half') + content(' a reply'))
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'incomplete')
  await expect(page.getByTestId('outcome')).toContainText('without [DONE]')
  await expect(page.getByTestId('parsed-content')).toHaveText('Half a reply')
  await expect(page.getByTestId('parsed-done')).toHaveText('not received')
})

test('10,000 frames: the window stays responsive and renders only what is visible', async ({ page }, testInfo) => {
  await openUi(page, server)
  const parts: string[] = []
  for (let i = 0; i < 10_000; i++) parts.push(content(`${i % 10}`))
  await replyWith(page, parts.join('') + finish + 'data: [DONE]\n\n')

  const started = Date.now()
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished')
  await expect(page.getByTestId('metric-frames')).toHaveText('10002')
  // Bounds with room for a loaded two-core CI machine (at a load of 15 the click below took 2.5 s):
  // they still catch a window that stalls for seconds on 10,000 frames.
  expect(Date.now() - started).toBeLessThan(10_000)

  // Windowed: a few dozen rows in the DOM, and the list follows the newest.
  expect(await page.getByTestId('frame-row').count()).toBeLessThan(100)
  await expect(page.getByTestId('frame-row').last()).toHaveAttribute('data-kind', 'done')
  await expect(page.getByTestId('parsed-content')).toHaveText(/^0123456789/)
  expect(((await page.getByTestId('parsed-content').textContent()) ?? '').length).toBe(10_000)

  // Scrolling to the top shows the first frames; the page answers at once.
  await page.getByTestId('frame-list').locator('.virtual-list__scroll').evaluate((element) => {
    element.scrollTop = 0
  })
  await expect(page.locator('[data-testid="frame-row"][data-seq="0"]')).toBeVisible()
  await expect(page.getByTestId('frame-list-jump')).toBeVisible()
  const clicked = Date.now()
  await page.getByTestId('inspector-tab-export').click()
  await page.getByTestId('export-jsonl').click()
  await expect(page.getByTestId('export-output')).toHaveAttribute('data-format', 'jsonl')
  expect(Date.now() - clicked).toBeLessThan(5_000)
  await saveScreenshot(page, testInfo, 'inspector-10000-frames')
})
