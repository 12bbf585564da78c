import type { Region } from '../../../api/system/region'

export interface RegionOption {
  value: string
  label: string
  isLeaf: boolean
  children?: RegionOption[]
}

export const optionOf = (region: Region): RegionOption => ({
  value: region.code,
  label: region.name,
  // Districts are the last level the station keeps.
  isLeaf: region.level >= 3 || region.hasChildren === false,
})

/** `options` with `children` set under the node at `path` (immutably). */
export function withChildrenAt(
  options: RegionOption[],
  path: readonly string[],
  children: RegionOption[],
): RegionOption[] {
  const [head, ...rest] = path
  return options.map((option) =>
    option.value !== head
      ? option
      : rest.length === 0
        ? { ...option, children }
        : { ...option, children: withChildrenAt(option.children ?? [], rest, children) },
  )
}
