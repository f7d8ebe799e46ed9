import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { startTestGateway, type TestGateway } from './harness'

// Codex CLI (`codex exec`), unmodified, against `mortar serve` with the scripted model through
// POST /v1/responses. (The Vercel AI SDK's default `openai(model)`, the other Responses client,
// runs with the other AI SDK providers in client-libraries.test.ts.)
// The binary comes in @openai/codex's platform package (an optional dependency of it): skipped
// only on a platform npm installed none for.
const CODEX = join(process.cwd(), 'node_modules', '.bin', 'codex')

describe('Codex CLI, codex exec', () => {
  // Codex's own instructions and tools are ~10k tokens: more than the scripted model's default
  // window of 4,096, so this gateway's config gives it a window a real model of its kind has.
  let gw: TestGateway
  beforeAll(async () => {
    const mortarHome = mkdtempSync(join(tmpdir(), 'mortar-codex-gateway-'))
    writeFileSync(
      join(mortarHome, 'config.json'),
      JSON.stringify({ version: 1, models: [{ id: DEFAULT_MODEL_ID, contextWindow: 32768, deployment: { kind: 'scripted' } }] }),
    )
    gw = await startTestGateway([], { home: mortarHome })
  })
  afterAll(() => gw.close())

  it.skipIf(!existsSync(CODEX))('runs a turn through /v1/responses and prints the echoed text', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-codex-home-'))
    const work = mkdtempSync(join(tmpdir(), 'mortar-codex-work-'))
    try {
      writeFileSync(join(home, 'config.toml'), codexConfig(gw.url))
      const key = gw.createKey({ name: 'codex' })
      const run = await runCodex(['exec', '--skip-git-repo-check', '-C', work, 'Mortar says hello'], {
        // Only what Codex needs, so that the machine's own OPENAI_* / CODEX_* variables and shell
        // profile play no part: HOME is the throw-away Codex home (its login shell finds no rc files).
        PATH: process.env.PATH ?? '',
        HOME: home,
        CODEX_HOME: home,
        MORTAR_API_KEY: key,
      })
      expect(run.code, run.stderr).toBe(0)
      // Its last message is the reply; before it, the scripted model called Codex's first tool
      // (exec_command, with an empty command), and Codex ran it and sent back its output.
      expect(run.stdout.trim()).toBe('Mortar says hello')
      const turns = gw.completions.filter((record) => record.id.startsWith('resp_'))
      expect(turns.map((record) => [record.outcome, record.finishReason])).toEqual([
        ['finished', 'tool_calls'],
        ['finished', 'stop'],
      ])
    } finally {
      rmSync(home, { recursive: true, force: true })
      rmSync(work, { recursive: true, force: true })
    }
  }, 60_000)
})

/**
 * Codex's config for this run: Mortar as its one model provider, and everything that would reach
 * beyond this machine or retry without end turned off, so that the test needs no network and a
 * broken gateway fails it within the test's time instead of hanging it.
 */
function codexConfig(gatewayUrl: string): string {
  return [
    `model = "${DEFAULT_MODEL_ID}"`,
    'model_provider = "mortar"',
    // Codex's update check and its usage and feedback reports go to OpenAI.
    'check_for_update_on_startup = false',
    '[analytics]',
    'enabled = false',
    '[feedback]',
    'enabled = false',
    // `plugins` clones OpenAI's plugin marketplace from GitHub at start-up; `shell_snapshot` runs a
    // login shell to copy the user's profile; `unbounded_connection_retries` would retry a refused
    // connection for ever.
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'shell_snapshot = false',
    'unbounded_connection_retries = false',
    '[model_providers.mortar]',
    'name = "Mortar"',
    `base_url = "${gatewayUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "MORTAR_API_KEY"',
    // A failed request or stream fails the run at once (the gateway is deterministic: a retry
    // would only hide the failure), and a stream that goes quiet fails it within the test's time.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 20000',
    '',
  ].join('\n')
}

/** Killed, with everything it started, if it has not ended after this long. */
const CODEX_DEADLINE_MS = 45_000

function runCodex(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // In a process group of its own: `.bin/codex` is a Node launcher that starts the native binary,
    // which starts the sandboxed tool commands — a kill of the group reaches all of them.
    const child = spawn(CODEX, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (bytes: Buffer) => (stdout += bytes.toString()))
    child.stderr.on('data', (bytes: Buffer) => (stderr += bytes.toString()))
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${CODEX_DEADLINE_MS} ms]`
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    }, CODEX_DEADLINE_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
