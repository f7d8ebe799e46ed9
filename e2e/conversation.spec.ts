// The playground as a place to hold a conversation: the reply appended as the next turn (tool
// calls included), boxes that grow, the sampling fields, a History that is in sight, a Send/Stop
// bar that stays in view, and "Edit and resend" that stays where it is.
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, setMessage, words } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer({ args: ['--scripted-tps', '200'] })
})

test.afterAll(async () => {
  await server?.stop()
})

const TOOLS = JSON.stringify([
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
])

async function sendAndFinish(page: Page): Promise<void> {
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
}

async function sentBody(page: Page): Promise<{ messages: Array<Record<string, unknown>> } & Record<string, unknown>> {
  await page.getByTestId('inspector-tab-request').click()
  return JSON.parse((await page.getByTestId('request-body').textContent()) ?? '{}')
}

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await openUi(page, server)
})

test('the reply becomes the next assistant turn, and the conversation goes on', async ({ page }) => {
  await setMessage(page, 'First question')
  await sendAndFinish(page)
  const reply = (await page.getByTestId('parsed-content').textContent()) ?? ''
  expect(reply).not.toBe('')
  await page.getByTestId('continue-button').click()
  await expect(page.getByTestId('message-1-role')).toHaveValue('assistant')
  await expect(page.getByTestId('message-1-content')).toHaveValue(reply)
  await expect(page.getByTestId('message-2-role')).toHaveValue('user')
  await expect(page.getByTestId('message-2-content')).toHaveValue('')
  await page.getByTestId('message-2-content').fill('Second question')
  await sendAndFinish(page)
  expect((await sentBody(page)).messages).toEqual([
    { role: 'user', content: 'First question' },
    { role: 'assistant', content: reply },
    { role: 'user', content: 'Second question' },
  ])
})

test('a tool call is appended with its id, and the tool result goes back in a tool turn', async ({ page }) => {
  await page.getByTestId('tools-json').fill(TOOLS)
  await page.getByTestId('tool-choice').selectOption('function:get_weather')
  await sendAndFinish(page)
  const id = await page.getByTestId('parsed-tool-call').locator('.muted').first().textContent()
  await page.getByTestId('continue-button').click()
  await expect(page.getByTestId('message-1-role')).toHaveValue('assistant')
  await expect(page.getByTestId('message-1-tool-calls')).toContainText('"name": "get_weather"')
  await expect(page.getByTestId('message-2-role')).toHaveValue('tool')
  await expect(page.getByTestId('message-2-tool-call-id')).toHaveValue(id ?? '')
  await page.getByTestId('message-2-content').fill('{"temp_c": 21}')
  await page.getByTestId('tool-choice').selectOption('')
  await sendAndFinish(page)
  const { messages } = await sentBody(page)
  expect(messages[1]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather' } }] })
  expect(messages[2]).toEqual({ role: 'tool', tool_call_id: id, content: '{"temp_c": 21}' })
})

test('message boxes grow with their text', async ({ page }) => {
  const box = page.getByTestId('message-0-content')
  const before = (await box.boundingBox())?.height ?? 0
  await box.fill(Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n'))
  const after = (await box.boundingBox())?.height ?? 0
  expect(after).toBeGreaterThan(before * 3)
  // Every line is shown: nothing to scroll inside the box.
  expect(await box.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1)
})

test('temperature, top_p, seed and stop are sent as typed, and refused out of range', async ({ page }) => {
  await page.getByTestId('temperature').fill('5')
  await expect(page.getByTestId('send-button')).toBeDisabled()
  await expect(page.getByRole('alert').filter({ hasText: 'temperature must be a number from 0 to 2.' })).toBeVisible()
  await page.getByTestId('temperature').fill('0.4')
  await page.getByTestId('top-p').fill('0.9')
  await page.getByTestId('seed').fill('7')
  await page.getByTestId('stop-sequences').fill('END\n###')
  await sendAndFinish(page)
  expect(await sentBody(page)).toMatchObject({ temperature: 0.4, top_p: 0.9, seed: 7, stop: ['END', '###'] })
})

test('History is in sight, the Send/Stop bar stays in view, and Edit and resend keeps its place', async ({ page }) => {
  await setMessage(page, 'one')
  await sendAndFinish(page)
  const history = page.getByTestId('run-history')
  await expect(history).toBeVisible()
  await expect(history).toBeInViewport()
  const editAt = await page.getByTestId('edit-resend').boundingBox()

  // A long stream, stopped: a longer outcome label than "Finished", and a long inspector to scroll.
  await setMessage(page, words(500))
  await page.getByTestId('send-button').click()
  await expect.poll(async () => Number(await page.getByTestId('metric-frames').textContent())).toBeGreaterThan(200)
  await page.getByTestId('stop-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'stopped')
  expect(await page.getByTestId('edit-resend').boundingBox()).toEqual(editAt)
  await expect(page.getByTestId('history-item')).toHaveCount(2)

  await page.locator('.playground__run').evaluate((pane) => pane.scrollTo(0, pane.scrollHeight))
  expect(await page.locator('.playground__run').evaluate((pane) => pane.scrollTop)).toBeGreaterThan(100)
  await expect(page.getByTestId('send-button')).toBeInViewport()
  await expect(page.getByTestId('stop-button')).toBeInViewport()
  expect(await page.getByTestId('edit-resend').boundingBox()).toEqual(editAt)
})
