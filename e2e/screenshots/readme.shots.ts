import { join, resolve } from 'node:path'
import OpenAI from 'openai'
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from '../fixtures/mortar-server'
import { openUi, setMessage } from '../fixtures/ui'

const IMAGES = resolve(__dirname, '..', '..', 'docs', 'images')
const TOOLS = JSON.stringify(
  [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
  null,
  2,
)

let server: MortarServer

// A gateway of its own per theme, so both themes show the same requests (Traffic lists every
// request the gateway captured, and the UI's own calls to /v1 are among them).
test.beforeEach(async () => {
  // Paced, so the inspector shows frames arriving over time.
  server = await startMortarServer({ args: ['--scripted-tps', '60'] })
})

test.afterEach(async () => {
  await server?.stop()
})

const shot = (page: Page, name: string) => page.screenshot({ path: join(IMAGES, name) })

for (const theme of ['light', 'dark'] as const) {
  test(`README screenshots, ${theme}`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.emulateMedia({ colorScheme: theme })
    await openUi(page, server)

    // Playground and inspector: a finished stream, then a tool call continued as a conversation.
    await page.getByTestId('system-prompt').fill('You are a concise assistant.')
    await setMessage(page, 'Stream this sentence back to me one token at a time, so the inspector can show every frame.')
    await page.getByTestId('send-button').click()
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 20_000 })
    await page.getByTestId('frame-row').nth(3).click()
    await shot(page, `inspector-stream-${theme}.png`)

    // Traffic: this window's requests and one from the openai SDK with its own key.
    const sdk = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: await server.firstRunKey() })
    await sdk.chat.completions.create({ model: 'Qwen/Qwen2.5-7B-Instruct', messages: [{ role: 'user', content: 'Hello from a script' }], stream: false })
    await page.getByTestId('tools-json').fill(TOOLS)
    await page.getByTestId('tool-choice').selectOption('function:get_weather')
    await page.getByTestId('header-session').fill('weather-agent')
    await page.getByTestId('send-button').click()
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 20_000 })
    await page.getByTestId('nav-traffic').click()
    await expect(page.getByTestId('traffic-view')).toBeVisible()
    // At least the three completions (the UI's own calls to /v1 are captured too), all ended.
    const completions = page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-endpoint').getByText('/v1/chat/completions', { exact: true }) })
    await expect(completions).toHaveCount(3)
    await expect(page.locator('[data-testid="traffic-row"][data-outcome="in_progress"]')).toHaveCount(0)
    // The tool call open below the list, in the same inspector the playground uses.
    await completions.filter({ has: page.getByTestId('traffic-session').getByText('weather-agent', { exact: true }) }).click()
    await expect(page.getByTestId('traffic-detail').getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished')
    await shot(page, `traffic-${theme}.png`)

    await page.getByTestId('nav-settings').click()
    await expect(page.getByTestId('status-deployment')).toBeVisible()
    await shot(page, `settings-${theme}.png`)
  })
}
