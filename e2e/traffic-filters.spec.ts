// The Traffic list as a user narrows it, in Chromium, against `mortar serve` and its scripted
// model: each filter (status class, outcome, model, client, session, endpoint, time range) and
// the search go to the traffic API and the list shows what it answers; "Load older" pages past
// the first page; Clear empties the store; the curl export of one request runs as it is.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, test, type Page } from '@playwright/test'
import { DEFAULT_MODEL_ID } from '../src/shared/api/chat-request'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { openUi } from './fixtures/ui'

const run = promisify(execFile)
let server: MortarServer
let key: string

test.beforeAll(async () => {
  server = await startMortarServer()
  key = await server.uiKey()
})
test.afterAll(async () => {
  await server?.stop()
})

async function chat(session: string, content: string): Promise<void> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'X-Mortar-Session': session },
    body: JSON.stringify({ messages: [{ role: 'user', content }], stream: false }),
  })
  expect(response.status).toBe(200)
  await response.text()
}

async function listModels(auth = key): Promise<number> {
  const response = await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${auth}` } })
  await response.text()
  return response.status
}

/** The rows the API lists for a query, as the list counts them ("n shown"). */
async function apiCount(query: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/traffic/exchanges?limit=500&${query}`, { headers: { Authorization: `Bearer ${key}` } })
  return ((await response.json()) as { data: unknown[] }).data.length
}

const shown = (page: Page) => page.getByTestId('traffic-count')
const cells = (page: Page, testId: string) => page.getByTestId('traffic-row').getByTestId(testId)

/** A `datetime-local` value (local time, to the second) for a moment. */
function localInput(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
}

/** Resolves at the start of the next wall-clock second (the time filter's resolution). */
async function nextSecond(): Promise<Date> {
  const next = Math.ceil((Date.now() + 1) / 1000) * 1000
  await new Promise((resolve) => setTimeout(resolve, next - Date.now()))
  return new Date(next)
}

async function openTraffic(page: Page): Promise<void> {
  await openUi(page, server)
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
}

test('each filter, the time range and the search narrow the list to what the API answers', async ({ page }) => {
  await chat('alpha', 'first in alpha')
  await chat('beta', 'first in beta')
  expect(await listModels('mk_live_' + 'n'.repeat(40))).toBe(401)
  const boundary = await nextSecond()
  await chat('alpha', 'second in alpha')
  expect(await listModels()).toBe(200)
  await openTraffic(page)
  await expect(page.getByTestId('traffic-row').first()).toBeVisible()

  await page.getByTestId('traffic-filter-status').selectOption('4xx')
  await expect(shown(page)).toHaveText(`${await apiCount('status=4xx')} shown · 0 running`)
  for (const status of await cells(page, 'traffic-status').allTextContents()) expect(status).toMatch(/^4\d\d$/)
  await page.getByTestId('traffic-filter-status').selectOption('')

  await page.getByTestId('traffic-filter-outcome').selectOption('refused')
  await expect(cells(page, 'traffic-key-name').filter({ hasText: 'unknown key' })).toHaveCount(1)
  await page.getByTestId('traffic-filter-outcome').selectOption('')

  await page.getByTestId('traffic-filter-client').selectOption('none')
  await expect(shown(page)).toHaveText(`${await apiCount('client=none')} shown · 0 running`)
  for (const client of await cells(page, 'traffic-key-name').allTextContents()) expect(client).toMatch(/key$/)
  await page.getByTestId('traffic-filter-client').selectOption('')

  await page.getByTestId('traffic-filter-session').selectOption('alpha')
  await expect(page.getByTestId('traffic-row')).toHaveCount(2)
  await page.getByTestId('traffic-filter-session').selectOption('')

  await page.getByTestId('traffic-filter-model').selectOption(DEFAULT_MODEL_ID)
  await expect(page.getByTestId('traffic-row')).toHaveCount(3)
  await page.getByTestId('traffic-filter-model').selectOption('')

  await page.getByTestId('traffic-filter-endpoint').selectOption('/v1/models')
  await expect(shown(page)).toHaveText(`${await apiCount('endpoint=/v1/models')} shown · 0 running`)
  for (const endpoint of await cells(page, 'traffic-endpoint').allTextContents()) expect(endpoint).toBe('GET /v1/models')
  await page.getByTestId('traffic-filter-endpoint').selectOption('/v1/chat/completions')

  // The time range: from the boundary on, the second chat alone; before it, the first two.
  await page.getByTestId('traffic-filter-since').fill(localInput(boundary))
  await expect(page.getByTestId('traffic-row')).toHaveCount(1)
  await page.getByTestId('traffic-row').click()
  await page.getByTestId('traffic-detail').getByTestId('inspector-tab-request').click()
  await page.getByTestId('traffic-detail').getByTestId('request-body-received').click()
  await expect(page.getByTestId('traffic-detail').getByTestId('request-body')).toContainText('second in alpha')
  await page.getByTestId('traffic-filter-since').fill('')
  await page.getByTestId('traffic-filter-until').fill(localInput(boundary))
  await expect(page.getByTestId('traffic-row')).toHaveCount(2)
  // A live exchange after the range is not added to it.
  await chat('gamma', 'after the range')
  await expect(shown(page)).toHaveText('2 shown · 0 running')
  await page.getByTestId('traffic-filter-until').fill('')
  await expect(page.getByTestId('traffic-row')).toHaveCount(4)

  await page.getByTestId('traffic-filter-endpoint').selectOption('')
  await page.getByTestId('traffic-search').fill('FIRST IN BETA')
  await expect(page.getByTestId('traffic-row')).toHaveCount(1)
  await expect(cells(page, 'traffic-session')).toHaveText('beta')
})

test("one request's curl export runs as it is: a chat completion and a GET", async ({ page }) => {
  await chat('curl-me', 'Run me with curl')
  expect(await listModels()).toBe(200)
  await openTraffic(page)
  const detail = page.getByTestId('traffic-detail')
  const curlOf = async (row: ReturnType<Page['getByTestId']>) => {
    await row.click()
    await detail.getByTestId('inspector-tab-export').click()
    await detail.getByTestId('export-curl').click()
    return (await detail.getByTestId('export-output').textContent()) ?? ''
  }
  const sh = (command: string) => run('sh', ['-c', command], { env: { ...process.env, MORTAR_API_KEY: key } })

  const chatCurl = await curlOf(page.getByTestId('traffic-row').filter({ hasText: 'curl-me' }))
  expect(chatCurl).not.toContain(key)
  const reply = JSON.parse((await sh(chatCurl)).stdout) as { choices: Array<{ message: { content: string } }> }
  expect(reply.choices[0]?.message.content).toBeTruthy()
  // What plain curl sent is captured too, within a second, under the same session.
  await expect(page.getByTestId('traffic-row').filter({ hasText: 'curl-me' })).toHaveCount(2, { timeout: 1_000 })

  const modelsCurl = await curlOf(page.getByTestId('traffic-row').filter({ has: page.getByTestId('traffic-endpoint').getByText('GET /v1/models', { exact: true }) }).first())
  const models = JSON.parse((await sh(modelsCurl)).stdout) as { object: string; data: Array<{ id: string }> }
  expect(models.object).toBe('list')
  expect(models.data.map((model) => model.id)).toContain(DEFAULT_MODEL_ID)
})

test('Load older pages past the first page; Clear empties the store and the list', async ({ page }) => {
  // More exchanges than the view's first page (200) holds. (The page's own polls of /v1/status
  // are exchanges too: the endpoint filter leaves them out.)
  await Promise.all(Array.from({ length: 230 }, () => listModels()))
  await openTraffic(page)
  await page.getByTestId('traffic-filter-endpoint').selectOption('/v1/models')
  await expect(shown(page)).toHaveText('200 shown · 0 running')
  await page.getByTestId('traffic-load-older').click()
  const total = await apiCount('endpoint=/v1/models')
  expect(total).toBeGreaterThan(230)
  await expect(shown(page)).toHaveText(`${Math.min(total, 400)} shown · 0 running`)

  const clearedAt = new Date().toISOString()
  await page.getByTestId('traffic-clear').click()
  await expect(shown(page)).toHaveText('0 shown · 0 running')
  expect(await apiCount(`until=${clearedAt}`)).toBe(0)
  // A reload reads the store again: what came before the clear is gone.
  await page.reload()
  await page.getByTestId('nav-traffic').click()
  await expect(page.getByTestId('traffic-connection')).toHaveAttribute('data-state', 'live')
  await chat('after-clear', 'after the clear')
  await expect(page.getByTestId('traffic-row').filter({ hasText: 'after-clear' })).toHaveCount(1)
  // What is left is what the page itself asked since (its GET /v1/models, its polls), not the 230.
  const left = await apiCount('')
  expect(left).toBeLessThan(20)
  await expect(shown(page)).toHaveText(new RegExp(`^(${left}|${left + 1}|${left + 2}) shown`))
})
