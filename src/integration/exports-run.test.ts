import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatCompletion } from '../shared/api/chat-response'
import { toFetch, toOpenAiSdkPython, toOpenAiSdkTypeScript } from '../renderer/src/logic/inspector/export-code'
import type { RecordedRequest } from '../renderer/src/logic/inspector/exchange'
import { toCurl } from '../renderer/src/logic/inspector/exports'
import { assembleCompletion, assembleFrames, type AssembledReply } from '../renderer/src/logic/inspector/assemble-reply'
import { StreamFrameRecorder } from '../renderer/src/logic/inspector/stream-frames'
import { buildPlaygroundRequest, defaultPlaygroundForm, EXAMPLE_TOOLS_JSON, type PlaygroundForm } from '../renderer/src/logic/playground/playground-request'
import { startTestGateway, type TestGateway } from './harness'

// Every export of the inspector runs as printed, for a few playground states: the TypeScript SDK
// code type-checks against the repo's `openai` package (also with the model left to the gateway),
// the Python code compiles, and curl and fetch, run against a real gateway, get the same reply as
// the request itself.
const run = promisify(execFile)
const ROOT = resolve(__dirname, '../..')

const STATES: Record<string, Partial<PlaygroundForm>> = {
  'gateway default model, streamed': {},
  'gateway default model, not streamed': { stream: false },
  'tools, a named tool_choice and headers': {
    model: DEFAULT_MODEL_ID,
    toolsJson: EXAMPLE_TOOLS_JSON,
    toolChoice: 'function:get_weather',
    session: 'export-check',
    optimize: 'on',
  },
  'quotes, newlines and non-ASCII, with a system prompt and max_tokens': {
    system: 'Be brief.',
    messages: [{ role: 'user', content: `It's "exported"\n— ünïcode ✓ $HOME \`x\`` }],
    maxTokens: '200',
  },
}

let gw: TestGateway
let dir: string
const requests: Array<[string, RecordedRequest]> = []

beforeAll(async () => {
  gw = await startTestGateway()
  // Inside node_modules, so `import OpenAI from 'openai'` resolves to the repo's package.
  dir = mkdtempSync(join(ROOT, 'node_modules', '.mortar-export-check-'))
  for (const [name, patch] of Object.entries(STATES)) {
    const built = buildPlaygroundRequest({ ...defaultPlaygroundForm(), ...patch })
    if (!built.ok) throw new Error(`${name}: ${JSON.stringify(built.problems)}`)
    requests.push([name, { url: `${gw.url}/v1/chat/completions`, headers: built.request.headers, body: built.request.body }])
  }
})
afterAll(async () => {
  await gw.close()
  rmSync(dir, { recursive: true, force: true })
})

/** What a reply says, whichever way it came: text and tool calls (their IDs are fresh each time). */
function gist(reply: AssembledReply) {
  return { content: reply.content, toolCalls: reply.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })), finish: reply.finishReason }
}

function replyOf(text: string, streamed: boolean): AssembledReply {
  if (!streamed) return assembleCompletion(JSON.parse(text) as ChatCompletion)
  const recorder = new StreamFrameRecorder()
  return assembleFrames([...recorder.push(new TextEncoder().encode(text), 0), ...recorder.end(0)])
}

async function direct(request: RecordedRequest): Promise<AssembledReply> {
  const response = await fetch(request.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${gw.ownerKey}`, 'Content-Type': 'application/json', ...request.headers },
    body: JSON.stringify(request.body),
  })
  expect(response.status).toBe(200)
  return replyOf(await response.text(), request.body.stream !== false)
}

const env = () => ({ ...process.env, MORTAR_API_KEY: gw.ownerKey })

describe('the inspector’s exports, run', () => {
  it('the TypeScript SDK code type-checks for every state (tsc --noEmit against the repo’s openai)', async () => {
    for (const [i, [, request]] of requests.entries()) writeFileSync(join(dir, `export-${i}.ts`), toOpenAiSdkTypeScript(request))
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'], skipLibCheck: true },
        include: ['*.ts'],
      }),
    )
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
    const tsc = await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')]).catch((error: { stdout: string }) => error)
    expect(tsc.stdout).toBe('')
  }, 60_000)

  it('the Python SDK code compiles for every state (python3 -m py_compile)', async () => {
    const files = requests.map(([, request], i) => {
      const file = join(dir, `export_${i}.py`)
      writeFileSync(file, toOpenAiSdkPython(request))
      return file
    })
    const compiled = await run('python3', ['-m', 'py_compile', ...files]).catch((error: { stderr: string }) => error)
    expect(compiled.stderr).toBe('')
  })

  it.each(Object.keys(STATES))('curl, run as printed, gets the same reply: %s', async (name) => {
    const request = requests.find(([n]) => n === name)![1]
    const expected = gist(await direct(request))
    const { stdout } = await run('sh', ['-c', toCurl(request)], { env: env() })
    expect(gist(replyOf(stdout, request.body.stream !== false))).toEqual(expected)
    expect(expected.content + expected.toolCalls.length).not.toBe('0')
  })

  it.each(Object.keys(STATES))('fetch, run with Node, gets the same reply: %s', async (name) => {
    const [i, [, request]] = [...requests.entries()].find(([, [n]]) => n === name)!
    const expected = gist(await direct(request))
    const file = join(dir, `fetch-${i}.mjs`)
    writeFileSync(file, toFetch(request))
    const { stdout } = await run(process.execPath, [file], { env: env() })
    if (request.body.stream === false) {
      expect(gist(assembleCompletion(JSON.parse(stdout) as ChatCompletion))).toEqual(expected)
    } else {
      expect(stdout.startsWith(expected.content)).toBe(true)
      for (const call of expected.toolCalls) expect(stdout).toContain(JSON.stringify(call.name))
      expect(stdout).toContain('[usage]')
    }
  })
})
