import { splitInlineCode } from '../../lib/inline-code'

/** A gateway or UI message, with its `backticked` spans shown as code. */
export function MessageText({ text }: { text: string }) {
  return (
    <>
      {splitInlineCode(text).map((span, i) => (span.code ? <code key={i}>{span.text}</code> : <span key={i}>{span.text}</span>))}
    </>
  )
}
