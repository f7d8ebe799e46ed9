import { useMemo, useState } from 'react'
import type { RecordedExchange } from '../../logic/inspector/exchange'
import { toFetch, toOpenAiSdkPython, toOpenAiSdkTypeScript } from '../../logic/inspector/export-code'
import { toCurl, toJsonl } from '../../logic/inspector/exports'
import type { StreamFrame } from '../../logic/inspector/stream-frames'
import { saveFile } from '../../lib/save-file'
import { ChoiceButtons } from '../common/ChoiceButtons'
import { CopyButton } from '../common/CopyButton'

type Format = 'curl' | 'jsonl' | 'sdk' | 'python' | 'fetch'

const FORMATS: ReadonlyArray<{ id: Format; label: string; file: string; type: string }> = [
  { id: 'curl', label: 'curl', file: 'request.sh', type: 'text/x-shellscript' },
  { id: 'sdk', label: 'OpenAI SDK (TypeScript)', file: 'request.ts', type: 'text/typescript' },
  { id: 'python', label: 'OpenAI SDK (Python)', file: 'request.py', type: 'text/x-python' },
  { id: 'fetch', label: 'fetch (JavaScript)', file: 'request.mjs', type: 'text/javascript' },
  { id: 'jsonl', label: 'Frames (JSONL)', file: 'frames.jsonl', type: 'application/jsonl' },
]

const EXPORTERS: Record<Exclude<Format, 'jsonl'>, (request: RecordedExchange['request']) => string> = {
  curl: toCurl,
  sdk: toOpenAiSdkTypeScript,
  python: toOpenAiSdkPython,
  fetch: toFetch,
}

interface ExportPanelProps {
  exchange: RecordedExchange
  frames: readonly StreamFrame[]
  frameCount: number
}

/** The request as curl, SDK or fetch code (the key comes from $MORTAR_API_KEY), the frames as JSONL. */
export function ExportPanel({ exchange, frames, frameCount }: ExportPanelProps) {
  const [format, setFormat] = useState<Format>('curl')
  const text = useMemo(() => {
    if (format === 'jsonl') return toJsonl(frames.slice(0, frameCount))
    return EXPORTERS[format](exchange.request)
  }, [format, exchange.request, frames, frameCount])
  const current = FORMATS.find((f) => f.id === format) ?? FORMATS[0]!
  return (
    <div className="export">
      <div className="export__bar">
        <ChoiceButtons choices={FORMATS} chosen={format} onChoose={setFormat} testIdPrefix="export-" />
        <span className="spacer" />
        <CopyButton text={text} testId="export-copy" />
        <button type="button" className="button button--small" onClick={() => saveFile(text, current.file, current.type)} data-testid="export-download">
          Download {current.file}
        </button>
      </div>
      <pre className="code export__text" data-testid="export-output" data-format={format}>
        {text}
      </pre>
    </div>
  )
}
