// A running exchange in Traffic, in Chromium, against `mortar serve` with a slow scripted model
// (8 tokens/s): it is listed while it runs, and its inspector streams it — frames appear as the
// gateway writes them — until it settles to its final record. Then Settings changes the capture
// mode of the running gateway, in the browser, with no restart.
import { expect, test, type Page } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi } from './fixtures/ui'

let server: MortarServer

test.beforeAll(async () => {
  server = await startMortarServer({ args: ['--scripted-tps', '8'] })
})

test.afterAll(async () => {
  await server?.stop()
})

const rowOf = (page: Page, session: string) =>
  page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-session').getByText(session, { exact: true }) })

async function chat(key: string, content: string, session: string): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Mortar-Session': session },
    body: JSON.stringify({ messages: [{ role: 'user', content }], stream: true }),
  })
}

test('a running stream is listed as running and its inspector follows it live, then settles', async ({ page }) => {
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
  const key = await server.uiKey()

  // 40 words at 8 tokens/s: a reply of several seconds.
  const response = await chat(key, 'slow '.repeat(40), 'slow-stream')
  expect(response.status).toBe(200)
  const whole = response.text()
  const row = rowOf(page, 'slow-stream')
  await expect(row).toHaveAttribute('data-outcome', 'in_progress')
  await row.click()
  const detail = page.getByTestId('traffic-detail')
  await expect(detail).toHaveAttribute('data-running', 'true')
  // Frames arrive while it runs: more than before, and still running.
  const frames = detail.getByTestId('frame-row')
  const frameCount = async () => Number(await detail.getByTestId('metric-frames').textContent())
  await expect(frames.first()).toBeVisible()
  const early = await frameCount()
  await expect.poll(frameCount).toBeGreaterThan(early + 2)
  await expect(detail).toHaveAttribute('data-running', 'true')
  await expect(row).toHaveAttribute('data-outcome', 'in_progress')

  // It settles to the final record: finished, the last frame [DONE].
  const text = await whole
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  await expect(row).toHaveAttribute('data-outcome', 'finished')
  await expect(detail).toHaveAttribute('data-running', 'false')
  await expect(frames.last()).toHaveAttribute('data-kind', 'done')
  // Every frame the client got, no more, no fewer.
  const sent = text.split('\n\n').filter((event) => event !== '').length
  await expect(detail.getByTestId('metric-frames')).toHaveText(String(sent))

  // A reload lists it from the store, no longer running.
  await page.reload()
  await page.getByTestId('nav-traffic').click()
  await expect(rowOf(page, 'slow-stream')).toHaveAttribute('data-outcome', 'finished')
})

test('Settings changes the capture mode of the running gateway, in a browser, at once', async ({ page }) => {
  await openUi(page, server)
  const key = await server.uiKey()
  await page.getByTestId('nav-settings').click()
  const select = page.getByTestId('settings-capture')
  await expect(select).toHaveAttribute('data-mode', 'memory')

  await select.selectOption('off')
  await expect(select).toHaveAttribute('data-mode', 'off')
  await expect(page.getByTestId('settings-capture-status')).toHaveText('Nothing is kept.')
  const status = await (await fetch(`${server.url}/v1/traffic/status`, { headers: { Authorization: `Bearer ${key}` } })).json()
  expect(status).toMatchObject({ mode: 'off' })
  // With capture off, Traffic shows the telemetry table: no bodies are kept.
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('capture-off')).toBeVisible()

  await page.getByTestId('nav-settings').click()
  await page.getByTestId('settings-capture').selectOption('memory')
  await expect(page.getByTestId('settings-capture')).toHaveAttribute('data-mode', 'memory')
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('capture-status')).toHaveAttribute('data-mode', 'memory')
  // Captured again, without a restart.
  await (await chat(key, 'hi', 'after-switch')).text()
  await expect(rowOf(page, 'after-switch')).toHaveAttribute('data-outcome', 'finished')
})
