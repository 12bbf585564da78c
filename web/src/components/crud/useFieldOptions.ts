import { useEffect, useState } from 'react'
import type { TreeNode } from '../../api/tree'
import { loadDict } from '../../hooks/useDict'
import type { CrudField, TextOption } from './types'

export interface LoadedOptions {
  /** Options of select fields fed by a dictionary or a loader, by field name. */
  options: Readonly<Record<string, TextOption[]>>
  /** Nodes of tree select fields, by field name. */
  trees: Readonly<Record<string, TreeNode[]>>
}

const empty: LoadedOptions = { options: {}, trees: {} }

/** Dictionary entries → options; numeric fields hold numbers, so their keys become numbers. */
export const dictOptions = (
  entries: readonly { dictKey: string; dictValue: string }[],
  numeric = false,
): TextOption[] =>
  entries.map((entry) => ({
    value: numeric && entry.dictKey.trim() !== '' ? Number(entry.dictKey) : entry.dictKey,
    label: entry.dictValue,
  }))

/**
 * Loads what the given fields choose from (dictionaries, other lists, trees) when they show.
 * `fields` must be stable (memoised) or it reloads every render. Failures leave a field without
 * options (the request client has shown the error).
 */
export function useFieldOptions(fields: readonly CrudField[]): LoadedOptions {
  const [loaded, setLoaded] = useState<{ fields: readonly CrudField[]; value: LoadedOptions }>({
    fields,
    value: empty,
  })
  useEffect(() => {
    let live = true
    const put = (patch: (prev: LoadedOptions) => LoadedOptions) =>
      live &&
      setLoaded((prev) => ({
        fields,
        value: patch(prev.fields === fields ? prev.value : empty),
      }))
    for (const field of fields) {
      const name = field.name
      const options = field.dict
        ? loadDict(field.dict).then((entries) => dictOptions(entries, field.numeric))
        : field.loadOptions?.()
      options?.then(
        (list) => put((prev) => ({ ...prev, options: { ...prev.options, [name]: list } })),
        () => undefined,
      )
      field.loadTree?.().then(
        (nodes) => put((prev) => ({ ...prev, trees: { ...prev.trees, [name]: nodes } })),
        () => undefined,
      )
    }
    return () => {
      live = false
    }
  }, [fields])
  return loaded.fields === fields ? loaded.value : empty
}
