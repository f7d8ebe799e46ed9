import { describe, expect, it } from 'vitest'
import { redactSecrets } from './redact-secrets'

describe('redactSecrets', () => {
  it.each([
    ['Invalid Authorization header: Bearer sk-proj-abcDEF1234567890xyzXYZ', 'Invalid Authorization header: Bearer [redacted]'],
    ['got "Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.sig-nature"', 'got "Authorization: Bearer [redacted]"'],
    ['Incorrect API key provided: sk-abcdefghijklmnop1234. You can find your key at …', 'Incorrect API key provided: [redacted]. You can find your key at …'],
    ['key mk_live_A1b2C3d4E5f6G7h8 is not valid here', 'key [redacted] is not valid here'],
    ['GET /v1/models?api_key=s3cr3tvalue&x=1 failed', 'GET /v1/models?api_key=[redacted]&x=1 failed'],
    ['config: {"apiKey": "hunter2hunter2"}', 'config: {"apiKey": "[redacted]"}'],
    ['x-api-key: abc123def456 rejected', 'x-api-key: [redacted] rejected'],
    ['password=correct-horse', 'password=[redacted]'],
    ['(token=abc.def-123) and [secret: xyz]', '(token=[redacted]) and [secret: [redacted]]'],
    ['HF token hf_abcdefghijklmnopqrstuvwxyz0123 has no access', 'HF token [redacted] has no access'],
    ['token ghp_16C7e42F292c6912E7710c838347Ae178B4a expired', 'token [redacted] expired'],
    ['AWS AKIAIOSFODNN7EXAMPLE denied', 'AWS [redacted] denied'],
    ['session 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 unknown', 'session [redacted] unknown'],
    ['blob dGhpcyBpcyBhIHNlY3JldCBrZXkgdGhhdCBpcyBsb25nZXI0Mg== leaked', 'blob [redacted] leaked'],
  ])('redacts %j', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected)
  })

  it.each([
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    'max_tokens must be at least 1',
    'Basic authentication failed',
    'model Qwen/Qwen2.5-7B-Instruct is not loaded',
    'request chatcmpl-0123456789abcdef01234567 (id 123e4567-e89b-12d3-a456-426614174000) failed',
    'CUDA out of memory. Tried to allocate 2.00 GiB',
    'Internationalization-and-localization-are-long-hyphenated-words',
  ])('keeps %j', (text) => {
    expect(redactSecrets(text)).toBe(text)
  })
})
