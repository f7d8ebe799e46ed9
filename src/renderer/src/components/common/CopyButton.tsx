import { useState } from 'react'

interface CopyButtonProps {
  text: string
  label?: string
  testId?: string
}

export function CopyButton({ text, label = 'Copy', testId }: CopyButtonProps) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    )
    setTimeout(() => setCopied('idle'), 1_500)
  }
  return (
    <button type="button" className="button button--small" onClick={copy} data-testid={testId}>
      {copied === 'copied' ? 'Copied' : copied === 'failed' ? 'Copy failed' : label}
    </button>
  )
}
