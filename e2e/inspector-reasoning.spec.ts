// A reasoning model's reply, played to the page by Playwright in place of the gateway's: the
// inspector shows the reasoning as its own part of the assembled reply.
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer()
})

test.afterAll(async () => {
  await server?.stop()
})

const id = 'chatcmpl-111111111111111111111111'
const chunk = (choice: object) =>
  `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: DEFAULT_MODEL_ID, choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }] })}\n\n`

test('reasoning_content deltas are shown apart from the reply text', async ({ page }) => {
  await openUi(page, server)
  await page.route('**/v1/chat/completions', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-mortar-request-id': id },
      body:
        chunk({ delta: { role: 'assistant' } }) +
        chunk({ delta: { reasoning_content: 'Two plus' } }) +
        chunk({ delta: { reasoning_content: ' two.' } }) +
        chunk({ delta: { content: '4' } }) +
        chunk({ finish_reason: 'stop' }) +
        'data: [DONE]\n\n',
    }),
  )
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished')
  await expect(page.getByTestId('parsed-reasoning')).toContainText('Two plus two.')
  await expect(page.getByTestId('parsed-content')).toHaveText('4')
})
