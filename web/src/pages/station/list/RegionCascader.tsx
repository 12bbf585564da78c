import { Cascader } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formSeed } from '../../../api/queryClient'
import { regionChildrenQuery, systemKeys } from '../../../api/system/queries'
import { regionChildren, rootRegion } from '../../../api/system/region'
import { optionOf, withChildrenAt, type RegionOption } from './regionTree'

const noOptions: RegionOption[] = []

interface Props {
  value?: string[]
  onChange?: (value: string[]) => void
  disabled?: boolean
  changeOnSelect?: boolean
  testId?: string
  style?: React.CSSProperties
}

/**
 * Province / city / district from the region API, one level at a time (`region/lazy-list`). A
 * given value has its path loaded up front so it shows by name.
 */
export default function RegionCascader({
  value,
  onChange,
  disabled,
  changeOnSelect = true,
  testId = 'field-region',
  style,
}: Props) {
  const { t } = useTranslation()
  const queryClient = useQueryClient()
  // The path of the value given first is loaded up front so it shows by name; later changes come
  // from the cascader itself.
  const [initialPath] = useState(() => value ?? [])
  const initial = useQuery({
    queryKey: [...systemKeys.regions, 'cascader', initialPath],
    queryFn: async () => {
      const children = (code: string) =>
        queryClient.fetchQuery(regionChildrenQuery(code)).then((rows) => rows.map(optionOf))
      let tree = await children(rootRegion)
      // Children of every chosen level but the last, so the chosen names can show.
      for (let i = 0; i < initialPath.length - 1 && i < 2; i++) {
        tree = withChildrenAt(tree, initialPath.slice(0, i + 1), await children(initialPath[i]))
      }
      return tree
    },
    ...formSeed,
  })
  /** Levels opened since (failures are shown by the request client). */
  const [opened, setOptions] = useState<RegionOption[] | null>(null)
  const options = opened ?? initial.data ?? noOptions

  const loadData = async (selected: RegionOption[]) => {
    const path = selected.map((option) => option.value)
    try {
      const children = (await regionChildren(path[path.length - 1])).map(optionOf)
      setOptions((prev) => withChildrenAt(prev ?? initial.data ?? noOptions, path, children))
    } catch {
      // shown by the request client
    }
  }

  return (
    <Cascader<RegionOption>
      data-testid={testId}
      options={options}
      value={value}
      disabled={disabled}
      changeOnSelect={changeOnSelect}
      loadData={(selected) => void loadData(selected)}
      onChange={(next) => onChange?.(next ?? [])}
      placeholder={t('stationUi.field.regionPlaceholder')}
      allowClear
      showSearch={false}
      style={style ?? { width: '100%' }}
    />
  )
}
