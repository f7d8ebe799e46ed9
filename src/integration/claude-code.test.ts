import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { startTestGateway, type TestGateway } from './harness'

/**
 * Claude Code itself (the `@anthropic-ai/claude-code` package's native binary, unmodified) runs
 * `claude -p` against the scripted model through POST /v1/messages, offline: an agent loop of two
 * turns — the scripted model calls the one tool Claude Code offers, Claude Code runs it and sends
 * its result, the scripted model answers in text (the prompt, repeated), which Claude Code prints.
 */

/** The platform's binary, which the package's postinstall would copy over its `bin/claude.exe` stub. */
function claudeBinary(): string | undefined {
  const require = createRequire(import.meta.url)
  try {
    const dir = dirname(require.resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`))
    const binary = join(dir, process.platform === 'win32' ? 'claude.exe' : 'claude')
    return existsSync(binary) ? binary : undefined
  } catch {
    return undefined
  }
}

const binary = claudeBinary()

function runClaude(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No stdin (`-p` would wait 3 s for piped input), a home and a working directory of its own.
    const child = spawn(binary ?? 'claude', args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (piece: Buffer) => (stdout += piece.toString()))
    child.stderr.on('data', (piece: Buffer) => (stderr += piece.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe.skipIf(binary === undefined)('claude -p against the scripted model', () => {
  let gw: TestGateway
  let dir: string
  beforeAll(async () => {
    gw = await startTestGateway()
    dir = mkdtempSync(join(tmpdir(), 'mortar-claude-'))
  })
  afterAll(async () => {
    await gw.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs a tool turn and prints the scripted answer', { timeout: 120_000 }, async () => {
    const prompt = 'Mortar says hello'
    const result = await runClaude(['-p', prompt, '--tools', 'Read', '--max-turns', '3'], {
      ANTHROPIC_BASE_URL: gw.url,
      ANTHROPIC_AUTH_TOKEN: gw.ownerKey,
      ANTHROPIC_MODEL: DEFAULT_MODEL_ID,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }, dir)
    expect(result, result.stderr).toMatchObject({ code: 0 })
    expect(result.stdout.trim()).toBe(prompt)
    // Two generations: the call of Read, then the answer to its result.
    expect(gw.completions.map((record) => [record.outcome, record.finishReason])).toEqual([
      ['finished', 'tool_calls'],
      ['finished', 'stop'],
    ])
  })
})
