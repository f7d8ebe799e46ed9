// The smaller things a new user trips over: each one checked as the user meets it.
import { createServer, type AddressInfo } from 'node:net'
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi, setMessage, words } from './fixtures/ui'

let server: MortarServer | undefined

test.afterEach(async () => {
  await server?.stop()
  server = undefined
})

const TOOLS = JSON.stringify([
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
])

/** WCAG 2 contrast ratio of an element's text against what is behind it, opacity included. */
async function contrastOf(page: Page, testId: string): Promise<number> {
  return page.getByTestId(testId).evaluate((element) => {
    type Node = typeof element
    const getComputedStyle = (node: Node) => element.ownerDocument.defaultView!.getComputedStyle(node)
    const parse = (css: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(css)
      const [r = 0, g = 0, b = 0, a = 1] = (m?.[1] ?? '0,0,0,0').split(/[ ,/]+/).filter(Boolean).map(Number)
      return [r, g, b, m?.[1]?.split(/[ ,/]+/).filter(Boolean).length === 4 ? a : 1]
    }
    const over = (top: number[], bottom: number[], alpha: number) => top.map((c, i) => c * alpha + (bottom[i] ?? 0) * (1 - alpha))
    // What is behind the element: the nearest ancestor with an opaque background.
    let behind: number[] = [255, 255, 255]
    for (let node = element.parentElement; node !== null; node = node.parentElement) {
      const bg = parse(getComputedStyle(node).backgroundColor)
      if (bg[3] > 0) {
        behind = bg.slice(0, 3)
        break
      }
    }
    let opacity = 1
    for (let node: Node | null = element; node !== null; node = node.parentElement) opacity *= Number(getComputedStyle(node).opacity)
    const style = getComputedStyle(element)
    const bg = parse(style.backgroundColor)
    const ownBg = over(bg.slice(0, 3), behind, bg[3])
    const fg = parse(style.color)
    const text = over(over(fg.slice(0, 3), ownBg, fg[3]), behind, opacity)
    const background = over(ownBg, behind, opacity)
    const luminance = (rgb: number[]) => {
      const [r = 0, g = 0, b = 0] = rgb.map((c) => {
        const s = c / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }
    const [hi, lo] = [luminance(text), luminance(background)].sort((a, b) => b - a)
    return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05)
  })
}

test('a tool-call reply shows no empty text box, and tool_choice shows whole function names', async ({ page }) => {
  server = await startMortarServer()
  await page.setViewportSize({ width: 1280, height: 900 })
  await openUi(page, server)
  await page.getByTestId('tools-json').fill(TOOLS)
  const choice = page.getByTestId('tool-choice')
  await choice.selectOption('function:get_weather')
  // The menu is wide enough for the selected option's text (plus its arrow).
  const fits = await choice.evaluate((select) => {
    const canvas = select.ownerDocument.createElement('canvas').getContext('2d')!
    canvas.font = select.ownerDocument.defaultView!.getComputedStyle(select).font
    const text = (select as unknown as { selectedOptions: ArrayLike<{ text: string }> }).selectedOptions[0]!.text
    return canvas.measureText(text).width + 32 <= select.clientWidth
  })
  expect(fits).toBe(true)
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  await expect(page.getByTestId('parsed-tool-call')).toHaveCount(1)
  await expect(page.getByTestId('parsed-content')).toHaveCount(0)
})

test('a request the model server could not answer shows why there is no reply, not an empty reply box', async ({ page }) => {
  // A model server that is not there: a port that was free a moment ago.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  server = await startMortarServer({ args: ['--upstream', `http://127.0.0.1:${port}/v1`] })
  await openUi(page, server)
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'http_error')
  await expect(page.getByTestId('parsed-content')).toHaveCount(0)
  await expect(page.getByTestId('parsed-no-reply')).toHaveText('No reply: the gateway answered HTTP 503 with the error above.')
  await expect(page.getByTestId('continue-button')).toBeDisabled()
})

test('a non-streamed request waits for its body, not in an empty frames table', async ({ page }) => {
  // About 3 s of paced generation on top of a gateway start: on a loaded two-core machine that
  // alone has taken 16 s.
  test.setTimeout(60_000)
  server = await startMortarServer({ args: ['--scripted-tps', '40'] })
  await openUi(page, server)
  await setMessage(page, words(120))
  await page.getByTestId('stream-toggle').uncheck()
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('raw-body')).toHaveText('Waiting for the response…')
  await expect(page.getByTestId('frame-row')).toHaveCount(0)
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 30_000 })
  await expect(page.getByTestId('raw-body')).toContainText('"object":"chat.completion"')
})

test('a gateway shutdown is labelled apart from a Stop', async ({ page }) => {
  server = await startMortarServer({ args: ['--scripted-tps', '20'] })
  await openUi(page, server)
  await setMessage(page, words(300))
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('stop-button')).toBeEnabled()
  await page.getByTestId('stop-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-stopped-by', 'this_window')
  await expect(page.getByTestId('outcome')).toContainText('by this window’s Stop')

  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('stop-button')).toBeEnabled()
  await server.stop()
  server = undefined
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-stopped-by', 'shutdown')
  await expect(page.getByTestId('outcome')).toContainText('Gateway shut down')
})

test('disabled Stop keeps readable contrast in dark mode and light mode', async ({ page }) => {
  server = await startMortarServer()
  await openUi(page, server)
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme })
    await expect(page.getByTestId('stop-button')).toBeDisabled()
    expect(await contrastOf(page, 'stop-button'), colorScheme).toBeGreaterThanOrEqual(4.5)
    expect(await contrastOf(page, 'disconnect-button'), colorScheme).toBeGreaterThanOrEqual(4.5)
  }
})

test('Settings: the theme menu fits its options, a hint shows its command as code; each snippet has the address its tool wants', async ({ page }) => {
  server = await startMortarServer()
  await page.setViewportSize({ width: 1280, height: 900 })
  await openUi(page, server)
  await page.getByTestId('nav-settings').click()
  const theme = await page.getByTestId('settings-theme').boundingBox()
  expect(theme?.width).toBeLessThan(250)
  const captureHint = page.getByTestId('settings-capture-section').locator('.field__hint')
  await expect(captureHint.locator('code', { hasText: 'mortar serve --capture' })).toBeVisible()
  await expect(captureHint).not.toContainText('`')

  const port = new URL(server.url).port
  await page.getByTestId('snippet-open-webui').click()
  await expect(page.getByTestId('snippet-text')).toContainText(`OPENAI_API_BASE_URL=http://host.docker.internal:${port}/v1`)
  // Claude Code adds /v1/messages itself; Codex CLI is given the /v1 base and the model's window.
  await page.getByTestId('snippet-claude-code').click()
  await expect.poll(() => page.getByTestId('snippet-text').textContent()).toContain(`export ANTHROPIC_BASE_URL=${server.url}\n`)
  await page.getByTestId('snippet-codex').click()
  await expect(page.getByTestId('snippet-text')).toContainText(`base_url = "${server.url}/v1"`)
  await expect(page.getByTestId('snippet-text')).toContainText('model_context_window = 4096')
})
