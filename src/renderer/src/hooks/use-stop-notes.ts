import { useCallback, useState } from 'react'
import { errorMessage } from '../logic/error-message'

export interface StopNotes {
  /** Completion ID → what became of its Stop: "stopping…", then the gateway's answer or the failure. */
  notes: Readonly<Record<string, string>>
  onStop(completionId: string): void
}

/** Stop buttons of a list, and a note per stopped request of what came of it. */
export function useStopNotes(stop: (id: string) => Promise<string>): StopNotes {
  const [notes, setNotes] = useState<Record<string, string>>({})
  const onStop = useCallback(
    (id: string) => {
      setNotes((current) => ({ ...current, [id]: 'stopping…' }))
      stop(id).then(
        (result) => setNotes((current) => ({ ...current, [id]: result })),
        (error: unknown) => setNotes((current) => ({ ...current, [id]: `stop failed: ${errorMessage(error)}` })),
      )
    },
    [stop],
  )
  return { notes, onStop }
}
