// Every view at the narrowest supported window (800 px) and a common one (1280 px), measured:
// Traffic's column titles sit over their columns however the table is scrolled, Stop can be
// reached and a session id Mortar made up shows whole; the inspector keeps its frame summary
// column and shows the kind, the assembled reply, a tool call's id and the usage whole.
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { expectColumnsAligned, expectNoPageOverflow, expectNotClipped, expectOneLine, expectWithinViewport } from './fixtures/layout'
import { chatInNoSession, openUi, saveScreenshot, words } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer({ args: ['--scripted-tps', '10'] })
})

test.afterAll(async () => {
  await server?.stop()
})

const head = { id: 'chatcmpl-000000000000000000000001', object: 'chat.completion.chunk', created: 1, model: DEFAULT_MODEL_ID }
const chunk = (choice: object | null, extra: object = {}) =>
  `data: ${JSON.stringify({ ...head, choices: choice === null ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }], ...extra })}\n\n`
const TOOL_CALL_ID = 'call_9f2c1d7e5b3a4c6d8e0f1a2b3c4d5e6f'
/** A reply with every kind of piece a model server sends: reasoning, text, a tool call, usage. */
const REPLY =
  chunk({ delta: { role: 'assistant', content: '' } }) +
  chunk({ delta: { reasoning_content: 'The user wants the weather; call the tool.' } }) +
  chunk({ delta: { content: 'Let me look that up for you: ' } }) +
  chunk({ delta: { content: words(40) } }) +
  chunk({ delta: { tool_calls: [{ index: 0, id: TOOL_CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '' } }] } }) +
  chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city": "Paris"}' } }] } }) +
  chunk({ delta: {}, finish_reason: 'tool_calls' }) +
  chunk(null, { usage: { prompt_tokens: 123456, completion_tokens: 98765, total_tokens: 222221, prompt_tokens_details: { cached_tokens: 120000 } } }) +
  ': ping\n\n' +
  'data: [DONE]\n\n'

async function replyWith(page: Page, body: string): Promise<void> {
  await page.route('**/v1/chat/completions', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-mortar-request-id': head.id },
      body,
    }),
  )
}

for (const width of [800, 1280]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } })

    test('the inspector shows the frame summary, the kind, the reply, the tool-call id and the usage whole', async ({ page }, testInfo) => {
      await openUi(page, server)
      await replyWith(page, REPLY)
      await page.getByTestId('send-button').click()
      await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished')
      await expect(page.getByTestId('frame-row')).toHaveCount(10)

      // The summary column keeps room to be read.
      const summary = page.getByTestId('frame-summary').nth(2)
      await expect(summary).toHaveText('"Let me look that up for you: "')
      expect(await summary.evaluate((el) => el.clientWidth)).toBeGreaterThanOrEqual(150)
      await expectWithinViewport(page, summary, 'the frame summary')
      for (const kind of await page.getByTestId('frame-kind').all()) await expectNotClipped(kind, `kind "${await kind.textContent()}"`)

      const content = page.getByTestId('parsed-content')
      await expect(content).toContainText('Let me look that up for you')
      await expectNotClipped(content, 'the assembled reply')
      await expectWithinViewport(page, content, 'the assembled reply')
      const id = page.getByTestId('parsed-tool-call-id')
      await expect(id).toHaveText(TOOL_CALL_ID)
      await expectNotClipped(id, 'the tool-call id')
      await expectWithinViewport(page, id, 'the tool-call id')
      const usage = page.getByTestId('parsed-usage')
      await expect(usage).toContainText('completion 98765')
      await expectNotClipped(usage, 'the usage')
      await expectWithinViewport(page, usage, 'the usage')
      // The timeline's scale is read beside the bars, not over the last of them ([DONE] is at the right end).
      const [scale, bars] = await Promise.all([page.getByTestId('timeline-scale').boundingBox(), page.getByTestId('timeline').boundingBox()])
      expect(scale, 'the timeline scale is rendered').not.toBeNull()
      const overlaps = scale !== null && bars !== null && scale.y < bars.y + bars.height && scale.y + scale.height > bars.y
      expect(overlaps, 'the timeline scale lies over the bars').toBe(false)
      await expectNoPageOverflow(page, 'the playground')
      await saveScreenshot(page, testInfo, `inspector-${width}`)
    })

    test("Traffic's column titles stay over their columns, and Stop can be reached", async ({ page }, testInfo) => {
      await openUi(page, server)
      await page.getByTestId('nav-traffic').click()
      await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
      // A slow stream (10 tokens/s), so it is still running while the table is measured.
      const controller = new AbortController()
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await server.uiKey()}`, 'X-Mortar-Session': `layout-${width}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: words(200) }], stream: true }),
        signal: controller.signal,
      })
      try {
        const row = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').filter({ hasText: `layout-${width}` }) })
        await expect(row).toHaveAttribute('data-outcome', 'in_progress')
        const headCells = page.getByRole('columnheader')
        const cells = row.locator('xpath=./*')
        await expectColumnsAligned(headCells, cells)
        for (const title of await headCells.all()) await expectNotClipped(title, `the column title "${await title.textContent()}"`)
        await expectNoPageOverflow(page, 'Traffic')
        const stop = row.getByTestId('traffic-stop')
        await expectWithinViewport(page, stop, 'Stop')
        await saveScreenshot(page, testInfo, `traffic-${width}`)

        // Scrolled sideways to its last column, the titles move with the cells.
        await page.getByTestId('traffic-table').locator('.virtual-list__scroll').evaluate((el) => {
          el.scrollLeft = el.scrollWidth
        })
        await expectColumnsAligned(headCells, cells)
        await stop.click()
        await expect(row).toHaveAttribute('data-outcome', 'stopped')
      } finally {
        controller.abort()
        await response.body?.cancel().catch(() => {})
      }
    })

    test('Traffic shows the model id and a session id Mortar made up whole, and keeps its last characters when the copy button takes room', async ({ page }) => {
      await openUi(page, server)
      await page.getByTestId('nav-traffic').click()
      await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
      await chatInNoSession(server, `no session named at ${width} px`)
      const row = page.getByTestId('traffic-row').filter({ has: page.locator('[data-testid="traffic-session"][data-session^="sess_"]') }).first()
      const session = row.getByTestId('traffic-session')
      const id = (await session.getAttribute('data-session')) ?? ''
      expect(id).toMatch(/^sess_[0-9a-f]{24}$/)
      await expect(session).toHaveText(id)
      await expectNotClipped(session.getByTestId('traffic-session-text'), 'the session id')
      await expect(row.getByTestId('traffic-model')).toHaveText(DEFAULT_MODEL_ID)
      await expectNotClipped(row.getByTestId('traffic-model'), 'the model id')
      // …and at 1280 px without scrolling the table sideways: every column fits.
      if (width === 1280) await expectNotClipped(page.getByTestId('traffic-table').locator('.virtual-list__scroll'), 'the Traffic table')

      // Selected, the row shows the copy button beside it: the id gives way in the middle, its
      // last characters (what tells rows apart) stay in sight.
      await row.click()
      await expect(session.getByTestId('traffic-session-copy')).toBeVisible()
      const tail = session.getByTestId('traffic-session-tail')
      await expect(tail).toHaveText(id.slice(-6))
      const [tailBox, textBox] = await Promise.all([tail.boundingBox(), session.getByTestId('traffic-session-text').boundingBox()])
      expect((tailBox?.x ?? 0) + (tailBox?.width ?? 0), 'the id\'s last characters end inside its cell').toBeLessThanOrEqual((textBox?.x ?? 0) + (textBox?.width ?? 0) + 0.5)
    })

    test('Settings fits the window, and the model id and each fact of a key stay on one line', async ({ page }) => {
      await openUi(page, server)
      await page.getByTestId('nav-settings').click()
      await expect(page.getByTestId('settings-view')).toBeVisible()
      await expectNoPageOverflow(page, 'Settings')
      await expectOneLine(page.getByTestId('status-deployment').locator('code').first(), 'the model id under Model servers')
      const cells = page.getByTestId('key-row').first().locator('td')
      await expect(cells).toHaveCount(9)
      for (const [i, what] of [[1, 'the key'], [2, 'the role'], [5, 'the created date'], [6, 'the expiry date'], [7, 'the status'], [8, 'Rotate and Revoke']] as const) {
        await expectOneLine(cells.nth(i), what)
      }
    })
  })
}
