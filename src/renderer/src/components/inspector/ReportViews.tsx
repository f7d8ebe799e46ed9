import { parseOptimizerReport, parseToolSelectorReport } from '../../../../shared/api/mortar-reports'

function Extra({ other, unparsed }: { other: Record<string, string>; unparsed: string[] }) {
  const entries = Object.entries(other)
  if (entries.length === 0 && unparsed.length === 0) return null
  return (
    <>
      {entries.map(([key, value]) => (
        <div key={key} className="report__row">
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
      {unparsed.length > 0 ? (
        <div className="report__row">
          <dt>unreadable</dt>
          <dd>{unparsed.join('; ')}</dd>
        </div>
      ) : null}
    </>
  )
}

const MODE_MEANING: Record<string, string> = {
  on: 'applied: the model read the optimized prompt',
  shadow: 'measured only: the prompt went as sent',
  off: 'nothing ran',
}

/** X-Mortar-Optimizer, field by field (docs/optimizer.md). */
export function OptimizerReportView({ report }: { report: string }) {
  const r = parseOptimizerReport(report)
  return (
    <div className="report" data-testid="optimizer-report">
      <h4>
        Optimizer <code className="muted">X-Mortar-Optimizer</code>
      </h4>
      <dl>
        <div className="report__row">
          <dt>mode</dt>
          <dd data-testid="optimizer-mode">
            {r.mode ?? '—'} {r.mode !== null && MODE_MEANING[r.mode] !== undefined ? <span className="muted">({MODE_MEANING[r.mode]})</span> : null}
          </dd>
        </div>
        <div className="report__row">
          <dt>ruleset</dt>
          <dd>{r.ruleset ?? '—'}</dd>
        </div>
        {r.bytes !== null ? (
          <div className="report__row">
            <dt>content bytes</dt>
            <dd data-testid="optimizer-bytes">{r.bytes.toLocaleString()}</dd>
          </div>
        ) : null}
        {r.saved !== null ? (
          <div className="report__row">
            <dt>{r.mode === 'shadow' ? 'would save' : 'saved'}</dt>
            <dd data-testid="optimizer-saved">
              {r.saved.toLocaleString()} bytes{r.savedPercent !== null ? ` (${r.savedPercent.toFixed(1)} %)` : ''}
            </dd>
          </div>
        ) : null}
        {r.passes.length > 0 ? (
          <div className="report__row">
            <dt>passes</dt>
            <dd data-testid="optimizer-passes">
              {r.passes.map((pass) => (
                <span key={pass.name} className="chip">
                  {pass.name} × {pass.count}
                </span>
              ))}
            </dd>
          </div>
        ) : null}
        {r.elapsedMicros !== null ? (
          <div className="report__row">
            <dt>time</dt>
            <dd>{r.elapsedMicros} µs</dd>
          </div>
        ) : null}
        <Extra other={r.other} unparsed={r.unparsed} />
      </dl>
      <code className="report__raw">{report}</code>
    </div>
  )
}

/** X-Mortar-Tool-Selector, field by field (docs/api-decisions.md). */
export function ToolSelectorReportView({ report }: { report: string }) {
  const r = parseToolSelectorReport(report)
  return (
    <div className="report" data-testid="tool-selector-report">
      <h4>
        Tool selector <code className="muted">X-Mortar-Tool-Selector</code>
      </h4>
      <dl>
        <div className="report__row">
          <dt>mode</dt>
          <dd>{r.mode ?? '—'}</dd>
        </div>
        <div className="report__row">
          <dt>tools</dt>
          <dd data-testid="tool-selector-tools">
            {r.toolsBefore ?? '?'} → {r.toolsAfter ?? '?'}
          </dd>
        </div>
        <div className="report__row">
          <dt>tool tokens</dt>
          <dd data-testid="tool-selector-tokens">
            {r.tokensBefore ?? '?'} → {r.tokensAfter ?? '?'}
          </dd>
        </div>
        <div className="report__row">
          <dt>saved</dt>
          <dd data-testid="tool-selector-saved">{r.saved === null ? '—' : `${r.saved} tokens`}</dd>
        </div>
        <Extra other={r.other} unparsed={r.unparsed} />
      </dl>
      <code className="report__raw">{report}</code>
    </div>
  )
}
