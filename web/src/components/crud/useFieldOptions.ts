import { useQueries } from '@tanstack/react-query'
import { useMemo } from 'react'
import { identityKey } from '../../api/queryClient'
import type { DictEntry } from '../../api/system/dict'
import { dictionaryQuery } from '../../api/system/queries'
import type { TreeNode } from '../../api/tree'
import type { CrudField, TextOption } from './types'

export interface LoadedOptions {
  /** Options of select fields fed by a dictionary or a loader, by field name. */
  options: Readonly<Record<string, TextOption[]>>
  /** Nodes of tree select fields, by field name. */
  trees: Readonly<Record<string, TreeNode[]>>
}

/** Dictionary entries → options; numeric fields hold numbers, so their keys become numbers. */
export const dictOptions = (
  entries: readonly { dictKey: string; dictValue: string }[],
  numeric = false,
): TextOption[] =>
  entries.map((entry) => ({
    value: numeric && entry.dictKey.trim() !== '' ? Number(entry.dictKey) : entry.dictKey,
    label: entry.dictValue,
  }))

const noLoad = () => Promise.resolve([])

/** Module-level, so the query client keeps the combined list stable while nothing changes. */
const dataOf = <D>(results: readonly { data: D | undefined }[]) => results.map((r) => r.data)

/**
 * Loads what the given fields choose from (dictionaries, other lists, trees) when they show, one
 * query each (dictionaries shared with every other select). `fields` should be stable (memoised).
 * Failures leave a field without options (the request client has shown the error).
 */
export function useFieldOptions(fields: readonly CrudField[]): LoadedOptions {
  const optionFields = useMemo(
    () => fields.filter((field) => field.dict ?? field.loadOptions),
    [fields],
  )
  const treeFields = useMemo(() => fields.filter((field) => field.loadTree), [fields])
  const optionData = useQueries({
    queries: optionFields.map((field) => {
      if (field.dict) {
        return {
          ...dictionaryQuery(field.dict),
          select: (entries: DictEntry[]) => dictOptions(entries, field.numeric),
        }
      }
      const load = field.loadOptions ?? noLoad
      return { queryKey: ['fieldOptions', field.name, identityKey(load)], queryFn: load }
    }),
    combine: dataOf<TextOption[]>,
  })
  const treeData = useQueries({
    queries: treeFields.map((field) => {
      const load = field.loadTree ?? noLoad
      return { queryKey: ['fieldTree', field.name, identityKey(load)], queryFn: load }
    }),
    combine: dataOf<TreeNode[]>,
  })
  return useMemo(() => {
    const options: Record<string, TextOption[]> = {}
    const trees: Record<string, TreeNode[]> = {}
    optionFields.forEach((field, i) => {
      const list = optionData[i]
      if (list) options[field.name] = list
    })
    treeFields.forEach((field, i) => {
      const nodes = treeData[i]
      if (nodes) trees[field.name] = nodes
    })
    return { options, trees }
  }, [optionFields, treeFields, optionData, treeData])
}
