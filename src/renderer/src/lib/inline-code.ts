// Gateway and CLI messages mark commands and names with backticks (Markdown's inline code),
// e.g. "Create one with `mortar keys create`". The UI shows those spans as code.

export interface TextSpan {
  text: string
  code: boolean
}

/**
 * Splits a message at backtick pairs. An unpaired backtick is kept as text, so nothing the
 * gateway wrote is lost; empty spans are dropped.
 */
export function splitInlineCode(message: string): TextSpan[] {
  const spans: TextSpan[] = []
  let rest = message
  for (;;) {
    const open = rest.indexOf('`')
    const close = open < 0 ? -1 : rest.indexOf('`', open + 1)
    if (close < 0) {
      if (rest !== '') spans.push({ text: rest, code: false })
      return spans
    }
    if (open > 0) spans.push({ text: rest.slice(0, open), code: false })
    if (close > open + 1) spans.push({ text: rest.slice(open + 1, close), code: true })
    rest = rest.slice(close + 1)
  }
}
