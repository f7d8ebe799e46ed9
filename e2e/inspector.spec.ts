import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { expect, test } from '@playwright/test'
import { startMortarServer, type MortarServer } from './fixtures/mortar-server'
import { frameCount, openUi, saveScreenshot, setMessage } from './fixtures/ui'

const run = promisify(execFile)
let server: MortarServer

test.beforeAll(async () => {
  // Paced, so frames arrive one by one with visible gaps.
  server = await startMortarServer({ args: ['--scripted-tps', '25'] })
})

test.afterAll(async () => {
  await server?.stop()
})

const MESSAGE = 'Watch these frames arrive one at a time, each with its own arrival time'

test('a streamed request: frames arrive one by one with timings, the parsed reply beside them, and [DONE]', async ({ page }, testInfo) => {
  await openUi(page, server)
  await setMessage(page, MESSAGE)
  await page.getByTestId('send-button').click()

  // Frames show up while the stream runs, not all at the end.
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'streaming')
  await expect.poll(() => frameCount(page)).toBeGreaterThan(2)
  const midway = await frameCount(page)
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  const total = await frameCount(page)
  expect(total).toBeGreaterThan(midway)

  const rows = page.getByTestId('frame-row')
  await expect(rows.first()).toHaveAttribute('data-kind', 'chunk')
  await expect(rows.last()).toHaveAttribute('data-kind', 'done')
  // Each row says what its frame carries: the role, then the text piece by piece, the finish, the usage.
  await expect(rows.first().getByTestId('frame-kind')).toHaveText('role')
  await expect(rows.first().getByTestId('frame-summary')).toHaveText('assistant')
  await expect(rows.nth(1).getByTestId('frame-kind')).toHaveText('content')
  await expect(rows.nth(1).getByTestId('frame-summary')).toHaveText(/^".+"$/)
  await expect(page.locator('[data-testid="frame-row"][data-summary="finish"]').getByTestId('frame-summary')).toHaveText('stop')
  await expect(page.locator('[data-testid="frame-row"][data-summary="usage"]').getByTestId('frame-summary')).toContainText('completion')
  await expect(rows.last().getByTestId('frame-summary')).toHaveText('[DONE]')
  // The exact text is one click away.
  await page.getByTestId('frames-toggle-raw').click()
  await expect(rows.last().getByTestId('frame-raw')).toContainText('data: [DONE]')
  await expect(rows.first().getByTestId('frame-raw')).toContainText('data: {"id":"chatcmpl-')
  // At 25 tokens/s, content frames are ~40 ms apart.
  const deltas = (await rows.getByTestId('frame-dt').allTextContents()).map((text) => Number(text.replace('+', '')))
  expect(deltas.filter((dt) => dt >= 20).length).toBeGreaterThan(5)

  await expect(page.getByTestId('parsed-content')).toHaveText(MESSAGE)
  await expect(page.getByTestId('parsed-finish-reason')).toHaveText('stop')
  await expect(page.getByTestId('parsed-done')).toHaveText('received')
  await expect(page.getByTestId('parsed-usage')).toContainText('completion')
  await expect(page.getByTestId('metric-ttft')).toHaveText(/ms|s$/)
  await expect(page.getByTestId('metric-tps')).toHaveText(/tok\/s/)

  // A frame in full: its exact text, blank line included.
  await rows.nth(2).click()
  const raw = await page.getByTestId('frame-detail-raw').textContent()
  expect(raw).toMatch(/^data: \{"id":"chatcmpl-[0-9a-f]{24}","object":"chat.completion.chunk"/)
  expect(raw?.endsWith('\n\n')).toBe(true)

  // The optimizer's report, read into fields; the headers both ways.
  await expect(page.getByTestId('optimizer-report')).toBeVisible()
  await expect(page.getByTestId('optimizer-mode')).toContainText('shadow')
  await saveScreenshot(page, testInfo, 'inspector-stream')
  await page.getByTestId('inspector-tab-headers').click()
  await expect(page.getByTestId('response-headers').locator('[data-header="x-mortar-request-id"]')).toContainText('chatcmpl-')
  // The key is never shown, not even in the request headers.
  await expect(page.getByTestId('request-headers')).not.toContainText(await server.uiKey())
})

test('tool calls are assembled from their pieces, and the tool selector report is read', async ({ page }, testInfo) => {
  await openUi(page, server)
  await setMessage(page, 'What is the weather in Paris?')
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } },
  ]
  await page.getByTestId('tools-json').fill(JSON.stringify(tools, null, 2))
  await expect(page.getByTestId('tools-status')).toContainText('2 tools')
  await page.getByTestId('tool-choice').selectOption('function:get_weather')
  await page.getByTestId('header-tool-select').selectOption('named')
  await page.getByTestId('header-optimize').fill('on')
  await page.getByTestId('send-button').click()

  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  const call = page.getByTestId('parsed-tool-call')
  await expect(call).toHaveCount(1)
  await expect(call).toHaveAttribute('data-name', 'get_weather')
  await expect(call).toContainText('"city": ""')
  await expect(page.getByTestId('parsed-finish-reason')).toHaveText('tool_calls')
  await expect(page.getByTestId('tool-selector-report')).toBeVisible()
  await expect(page.getByTestId('tool-selector-tools')).toHaveText('2 → 1')
  await expect(page.getByTestId('tool-selector-saved')).toContainText('tokens')
  await expect(page.getByTestId('optimizer-mode')).toContainText('shadow')
  await saveScreenshot(page, testInfo, 'inspector-tool-call')
})

test('the tools editor refuses what the gateway would', async ({ page }) => {
  await openUi(page, server)
  await page.getByTestId('tools-json').fill('[{"type": "function", "function": {"name": "has space"}}]')
  await expect(page.getByTestId('tools-error')).toContainText('tools[0].function.name')
  await expect(page.getByTestId('send-button')).toBeDisabled()
  await page.getByTestId('tools-json').fill('[{')
  await expect(page.getByTestId('tools-error')).toContainText('Not JSON')
  await page.getByTestId('tools-json').fill('')
  await expect(page.getByTestId('send-button')).toBeEnabled()
})

test('exports: curl and SDK code that repeat the request, and the frames as JSONL', async ({ page }, testInfo) => {
  await openUi(page, server)
  await setMessage(page, "It's exported")
  await page.getByTestId('header-session').fill('export-test')
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  const frames = await frameCount(page)
  const key = await server.uiKey()
  await page.getByTestId('inspector-tab-export').click()
  const output = page.getByTestId('export-output')

  // curl: no key inside; run as printed, it streams the same reply.
  await page.getByTestId('export-curl').click()
  const curl = (await output.textContent()) ?? ''
  expect(curl).toContain(`curl -N '${server.url}/v1/chat/completions'`)
  expect(curl).toContain('$MORTAR_API_KEY')
  expect(curl).toContain("X-Mortar-Session: export-test")
  expect(curl).not.toContain(key)
  const curlRun = await run('sh', ['-c', curl], { env: { ...process.env, MORTAR_API_KEY: key } })
  expect(curlRun.stdout).toContain('data: [DONE]')
  expect(curlRun.stdout).toContain('exported')

  // JSONL: one line per frame, with the exact text and timings.
  await page.getByTestId('export-jsonl').click()
  await expect(output).toHaveAttribute('data-format', 'jsonl')
  const lines = ((await output.textContent()) ?? '').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  expect(lines).toHaveLength(frames)
  expect(lines.at(-1)).toMatchObject({ kind: 'done', raw: 'data: [DONE]\n\n' })
  expect(lines[0]).toHaveProperty('at_ms')
  expect(lines[0]).toHaveProperty('dt_ms')

  // The OpenAI SDK code, run with tsx: it streams the same reply.
  await page.getByTestId('export-sdk').click()
  const code = (await output.textContent()) ?? ''
  expect(code).toContain(`baseURL: "${server.url}/v1"`)
  expect(code).not.toContain(key)
  await saveScreenshot(page, testInfo, 'inspector-export')
  const file = testInfo.outputPath('exported.mts')
  await writeFile(file, code)
  const sdkRun = await run(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, MORTAR_API_KEY: key }, cwd: testInfo.outputDir })
  expect(sdkRun.stdout).toContain("It's exported")

  // Plain fetch, run with Node: the same reply, no dependencies. Python: offered beside it.
  await page.getByTestId('export-fetch').click()
  await expect(output).toHaveAttribute('data-format', 'fetch')
  const fetchFile = testInfo.outputPath('exported-fetch.mjs')
  await writeFile(fetchFile, (await output.textContent()) ?? '')
  const fetchRun = await run(process.execPath, [fetchFile], { env: { ...process.env, MORTAR_API_KEY: key } })
  expect(fetchRun.stdout).toContain("It's exported")
  await page.getByTestId('export-python').click()
  await expect(output).toContainText(`OpenAI(base_url="${server.url}/v1", api_key=os.environ["MORTAR_API_KEY"])`)
})

test('a non-streamed request with in-flight dedupe: the JSON body, its parsed view and the dedupe header', async ({ page }) => {
  await openUi(page, server)
  await setMessage(page, 'not streamed')
  await page.getByTestId('stream-toggle').uncheck()
  await expect(page.getByTestId('include-usage-toggle')).toBeDisabled()
  await page.getByTestId('header-dedupe').selectOption('in-flight')
  await expect(page.getByTestId('header-idempotency-key')).toHaveValue(/^ui-/)
  await page.getByTestId('send-button').click()
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'finished', { timeout: 15_000 })
  await expect(page.getByTestId('raw-body')).toContainText('"object":"chat.completion"')
  await expect(page.getByTestId('parsed-content')).toHaveText('not streamed')
  await expect(page.getByTestId('parsed-usage')).toContainText('total')
  await page.getByTestId('inspector-tab-headers').click()
  await expect(page.getByTestId('response-headers').locator('[data-header="x-mortar-dedupe"]')).toContainText('leader')
  await expect(page.getByTestId('request-headers')).toContainText('Idempotency-Key')

  // Edit and resend: the form comes back from the request, ready to change.
  await setMessage(page, 'something else')
  await page.getByTestId('edit-resend').click()
  await expect(page.getByTestId('message-0-content')).toHaveValue('not streamed')
  await expect(page.getByTestId('stream-toggle')).not.toBeChecked()
})
