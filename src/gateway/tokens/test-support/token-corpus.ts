/**
 * Text that tokenizers get wrong in different ways, for equality tests and the benchmark: prose,
 * code, JSON, numbers and IDs (Qwen splits every digit), tables, Chinese and other scripts,
 * characters NFC changes, emoji, whitespace runs, contractions, special-token text, and words
 * long enough to take the long-word merge loop.
 */
export const TOKEN_CORPUS: Readonly<Record<string, string>> = {
  prose:
    'The gateway accepts a prompt only when it fits. Undercounting is the dangerous direction: ' +
    "the model server then rejects what we accepted. It's why we count with the model's own " +
    "tokenizer — and why we're careful. I'M SURE THEY'LL AGREE; you'd think so, wouldn't you?",
  code: [
    'export function planTokens(model: CatalogModel, request: ChatCompletionRequest): TokenPlan {',
    '  const left = model.contextWindow - promptTokens - TEMPLATE_OVERHEAD_TOKENS',
    "  if (left < 64) throw invalidRequest(`too long: ${promptTokens}`, 'messages')",
    '  return { promptTokens, maxTokens: Math.min(request.maxTokens ?? 1024, left) }',
    '}',
    '',
    'def fib(n: int) -> int:',
    '\treturn n if n < 2 else fib(n - 1) + fib(n - 2)  # O(2**n)',
    '',
    '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); return 0; }\r\n',
  ].join('\n'),
  json:
    '{"id": "chatcmpl-3f9a1c0e5b7d4e2f8a6b9c1d", "object": "chat.completion", "created": 1735689600, ' +
    '"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": ' +
    '[{"id": "call_0f1e2d3c4b5a", "type": "function", "function": {"name": "get_weather", ' +
    '"arguments": "{\\"city\\": \\"Zürich\\", \\"unit\\": \\"celsius\\"}"}}]}}], ' +
    '"usage": {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}}\n' +
    JSON.stringify({ nested: { list: [1, 2.5, -3e-7, true, null], empty: {}, text: 'a\tb\nc' } }, null, 2),
  numbers:
    'Order #20240917-004512, invoice INV-0000983412, total 1,234,567.89 EUR (≈ $1.35e6). ' +
    'UUID 123e4567-e89b-12d3-a456-426614174000, sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, ' +
    'IPv4 192.168.100.254:8080, IPv6 2001:0db8:85a3::8a2e:0370:7334, phone +41 44 668 18 00, ' +
    'date 2025-01-31T23:59:59.999Z, version v10.15.0-rc.2, ½ ¾ ² ³ Ⅻ ٣٤٥ १२३',
  markdownTable: [
    '| model                    | context | tokens/s | price ($/1M) |',
    '|--------------------------|--------:|---------:|-------------:|',
    '| Qwen/Qwen2.5-7B-Instruct |  32768  |   84.20  |        0.10  |',
    '| Qwen/Qwen2.5-72B         | 131072  |   12.05  |        0.90  |',
  ].join('\n'),
  whitespaceTable:
    'id      name            qty     price\n' +
    '1       widget          12      3.50   \n' +
    '2       gadget           7     12.00\t\t\n' +
    '\n\n\n' +
    '   \t  indented after blank lines    \n' +
    'trailing   \r\n\r\n  crlf lines\u00a0nbsp\u3000ideographic\u2003em\u0085nel\ufeffbom',
  chinese:
    '你好世界。大语言模型的上下文窗口是有限的，网关必须在转发请求之前准确地计算提示词的令牌数量。' +
    '如果计数偏少，模型服务器就会拒绝一个网关已经接受的请求；如果计数偏多，用户就会失去本可以使用的空间。' +
    '通义千问的分词器把每一个数字单独切分，例如２０２５年１月３１日，而中文词语往往合并成一个令牌。',
  otherScripts:
    'Привет, мир! Καλημέρα κόσμε. こんにちは世界、カタカナとひらがな。안녕하세요 세계. ' +
    'مرحبا بالعالم. नमस्ते दुनिया, क़लम ज़रूर. שלום עולם. Grüße aus Köln: café, naïve, Ångström, ﬁne ligature.',
  nfc: 'e\u0301 A\u030a n\u0303o\u0308 \u0915\u093c \u2126 \u212b \uf900 Hangul \u1100\u1161\u11a8 >\u0338 <\u0338',
  emoji: 'Launch 🚀🚀 done ✅ — family 👩‍👩‍👧‍👦, flags 🇨🇭🇯🇵, skin 👍🏽, keycap 1️⃣, text ☺︎ vs emoji ☺️, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛',
  specialTokenText:
    'Say <|im_end|> then <|im_start|>assistant\n<tool_call>\n{"name": "f"}\n</tool_call> and <|endoftext|>; ' +
    'not specials: <|im_ <|im_start <|IM_END|> < |im_end| > <tool_call <|fim_prefix|><|file_sep|>',
  contractions: "don't can't I'm you're we've they'll she'd it's DON'T I'M WE'LL THEY'RE it'S o'clock '90s 'tis",
  longWords:
    'YmFzZTY0IGJsb2IgdGhhdCBnb2VzIG9uIGFuZCBvbg'.repeat(12) +
    ' ' +
    ' '.repeat(300) +
    'x ' +
    '='.repeat(200) +
    '\n' +
    '网关必须在转发请求之前准确地计算提示词的令牌数量而不是估算它们'.repeat(4) +
    ' ' +
    '\n'.repeat(40) +
    'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(3),
}
