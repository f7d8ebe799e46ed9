import type { EmbeddingsSummary } from '../../logic/inspector/embeddings-reply'

/** An embeddings reply read for people: how many vectors, how wide, and the first values of the first few. */
export function EmbeddingsView({ summary }: { summary: EmbeddingsSummary }) {
  const more = summary.count - summary.rows.length
  return (
    <div className="parsed" data-testid="embeddings-view">
      <h3>Embeddings</h3>
      <dl className="parsed__facts">
        <dt>vectors</dt>
        <dd data-testid="embeddings-count">{summary.count}</dd>
        <dt>dimensions</dt>
        <dd data-testid="embeddings-dimensions">{summary.dimensions ?? 'differ'}</dd>
        <dt>encoding</dt>
        <dd data-testid="embeddings-encoding">{summary.encoding === 'base64' ? 'base64 (float32, little-endian)' : summary.encoding}</dd>
        <dt>usage</dt>
        <dd>{summary.promptTokens === null ? '—' : `prompt ${summary.promptTokens}`}</dd>
        <dt>model</dt>
        <dd>{summary.model ?? '—'}</dd>
      </dl>
      <table className="embeddings-table" data-testid="embeddings-rows">
        <thead>
          <tr>
            <th>index</th>
            <th>first values</th>
            <th>not 0</th>
            <th>norm</th>
          </tr>
        </thead>
        <tbody>
          {summary.rows.map((row) => (
            <tr key={row.index} data-testid="embeddings-row">
              <td>{row.index}</td>
              <td>
                <code>
                  {row.dimensions === null ? 'not a vector' : `[${row.head.join(', ')}${row.dimensions > row.head.length ? `, … ${row.dimensions - row.head.length} more` : ''}]`}
                </code>
              </td>
              <td>{row.nonZero ?? '—'}</td>
              <td>{row.norm ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more > 0 ? <p className="muted">and {more} more vectors (the raw body and the exports have them all)</p> : null}
    </div>
  )
}
